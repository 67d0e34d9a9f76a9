import { describe, expect, it } from "vitest";
import { createAccessLinks } from "./access-links.ts";

const recordingId = "0b8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69";

describe("recording access links", () => {
  const links = createAccessLinks("a-test-secret-that-is-at-least-32-characters");

  it("verifies a link it issued, until it expires", () => {
    const token = links.issue(recordingId, new Date(Date.now() + 60_000));
    expect(links.verify(token)).toEqual({ ok: true, id: recordingId });
    expect(links.verify(token, new Date(Date.now() + 61_000))).toEqual({ ok: false, problem: "expired" });
  });

  it("refuses a link signed with another secret, a changed payload or a truncated signature", () => {
    const token = links.issue(recordingId, new Date(Date.now() + 60_000));
    const other = createAccessLinks("another-secret-that-is-at-least-32-characters!").issue(recordingId, new Date(Date.now() + 60_000));
    expect(links.verify(other)).toEqual({ ok: false, problem: "invalid" });
    const [payload, signature] = token.split(".");
    const longer = Buffer.from(`${recordingId}.${Math.floor(Date.now() / 1000) + 999_999}`).toString("base64url");
    expect(links.verify(`${longer}.${signature}`)).toEqual({ ok: false, problem: "invalid" });
    expect(links.verify(`${payload}.${signature!.slice(0, 20)}`)).toEqual({ ok: false, problem: "invalid" });
    expect(links.verify("")).toEqual({ ok: false, problem: "invalid" });
  });

  it("without a secret (production without RECORDING_LINK_SECRET) accepts no link", () => {
    const token = links.issue(recordingId, new Date(Date.now() + 60_000));
    const disabled = createAccessLinks(undefined);
    expect(disabled.enabled).toBe(false);
    expect(disabled.verify(token)).toEqual({ ok: false, problem: "invalid" });
    expect(disabled.verify(disabled.issue(recordingId, new Date(Date.now() + 60_000)))).toEqual({ ok: false, problem: "invalid" });
  });

  it("a recording's link does not open a transcript of the same id, nor the other way round (same secret)", () => {
    const transcripts = createAccessLinks("a-test-secret-that-is-at-least-32-characters", "transcript");
    const expiresAt = new Date(Date.now() + 60_000);
    expect(transcripts.verify(links.issue(recordingId, expiresAt))).toEqual({ ok: false, problem: "invalid" });
    expect(links.verify(transcripts.issue(recordingId, expiresAt))).toEqual({ ok: false, problem: "invalid" });
    expect(transcripts.verify(transcripts.issue(recordingId, expiresAt))).toEqual({ ok: true, id: recordingId });
  });
});
