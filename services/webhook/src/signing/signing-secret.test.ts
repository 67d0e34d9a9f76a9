import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateSigningSecret, signedHeaders, signingKey } from "./signing-secret.ts";

describe("signing secrets and signatures (Standard Webhooks)", () => {
  it("generates whsec_ + base64 of 32 random bytes, different every time", () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it("produces headers the standardwebhooks library verifies, returning the payload", () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ type: "meeting.ended", timestamp: new Date().toISOString(), data: { meetingId: "m1" } });
    const headers = signedHeaders(signingKey(secret), "2b4c3f0e-1111-4222-8333-444455556666", body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it("signatures fail verification with another secret or a changed body", () => {
    const secret = generateSigningSecret();
    const body = '{"type":"meeting.ended"}';
    const headers = signedHeaders(signingKey(secret), "msg-1", body);
    expect(() => new Webhook(generateSigningSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(secret).verify('{"type":"meeting.ended" }', { ...headers })).toThrow();
  });

  it("uses the attempt's own time: a fresh timestamp is re-signed and a stale one is refused by the verifier", () => {
    const secret = generateSigningSecret();
    const body = "{}";
    const old = signedHeaders(signingKey(secret), "msg-1", body, new Date(Date.now() - 10 * 60_000));
    const fresh = signedHeaders(signingKey(secret), "msg-1", body);
    expect(fresh["webhook-timestamp"]).not.toBe(old["webhook-timestamp"]);
    expect(fresh["webhook-signature"]).not.toBe(old["webhook-signature"]);
    expect(() => new Webhook(secret).verify(body, { ...old })).toThrow(/timestamp/i);
    expect(new Webhook(secret).verify(body, { ...fresh })).toEqual({});
  });

  it("signs with every key it is given, so a receiver holding either secret verifies (rotation)", () => {
    const [current, previous, unrelated] = [generateSigningSecret(), generateSigningSecret(), generateSigningSecret()];
    const body = '{"type":"meeting.ended"}';
    const headers = signedHeaders([signingKey(current), signingKey(previous)], "msg-1", body);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(unrelated).verify(body, { ...headers })).toThrow();
  });

  it("refuses a secret without the whsec_ prefix", () => {
    expect(() => signingKey("abc")).toThrow(/whsec_/);
  });
});
