import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Provider from "oidc-provider";
// @ts-expect-error oidc-provider's per-instance internal store has no types (see response-modes.ts).
import instance from "oidc-provider/lib/helpers/weak_cache.js";
import { describe, expect, it } from "vitest";
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from "./provider-configuration.ts";
import { stubbedOAuthProvider } from "./in-memory-provider.ts";

// Three hooks of this server reach past oidc-provider's configuration (docs/security.md,
// "oidc-provider internals"). Each test here names one, and fails when an upgrade moves what it
// relies on, before the end-to-end OAuth tests fail in less obvious ways.

const libraryRoot = path.dirname(createRequire(import.meta.url).resolve("oidc-provider/package.json"));
const librarySource = (file: string) => readFileSync(path.join(libraryRoot, "lib", file), "utf8");
const registryOf = (provider: Provider) => (instance as (provider: Provider) => { responseModes: Map<string, unknown> })(provider).responseModes;

const ours = () => stubbedOAuthProvider("https://meet.example.com");
const pristine = () => new Provider("https://meet.example.com", { clients: [] });

describe("oidc-provider internals this server relies on (pinned 9.13.3)", () => {
  it("is the version the hooks were written against", () => {
    const { version } = JSON.parse(readFileSync(path.join(libraryRoot, "package.json"), "utf8")) as { version: string };
    expect(version, "oidc-provider was upgraded: re-check every hook in docs/security.md before changing this").toBe("9.13.3");
  });

  it("hashed client secrets: the library authenticates a client through Client.prototype.compareClientSecret, which we replace", async () => {
    expect(typeof pristine().Client.prototype.compareClientSecret, "Client.prototype.compareClientSecret is gone").toBe("function");
    expect(librarySource("shared/client_auth.js"), "client authentication no longer calls compareClientSecret").toContain(
      "ctx.oidc.client.compareClientSecret(clientSecret)",
    );
    const compare = ours().Client.prototype.compareClientSecret as (this: { clientSecret: string }, presented: string) => Promise<boolean> | boolean;
    const stored = { clientSecret: createHash("sha256").update("the-secret").digest("hex") };
    expect(await compare.call(stored, "the-secret")).toBe(true);
    expect(await compare.call(stored, stored.clientSecret)).toBe(false);
  });

  it("token prefixes: AccessToken and RefreshToken ids come from prototype.generateTokenId, which we wrap", () => {
    type Model = { prototype: { generateTokenId(this: unknown): string } };
    const library = pristine();
    for (const model of [library.AccessToken, library.RefreshToken] as unknown as Model[]) {
      expect(typeof model.prototype.generateTokenId, "generateTokenId is gone").toBe("function");
    }
    const provider = ours();
    const accessTokenId = (provider.AccessToken as unknown as Model).prototype.generateTokenId.call({ kind: "AccessToken" });
    const refreshTokenId = (provider.RefreshToken as unknown as Model).prototype.generateTokenId.call({ kind: "RefreshToken" });
    expect(accessTokenId).toMatch(new RegExp(`^${ACCESS_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(refreshTokenId).toMatch(new RegExp(`^${REFRESH_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));
  });

  it("query-only responses: the per-instance registry (weak_cache.js) holds the response modes, and ours keeps only query", () => {
    const modes = registryOf(pristine());
    expect(modes, "the response-mode registry moved out of weak_cache's instance store").toBeInstanceOf(Map);
    expect([...modes.keys()]).toEqual(expect.arrayContaining(["query", "fragment", "form_post"]));
    expect(librarySource("shared/authorization_error_handler.js"), "errors no longer consult the registry").toContain(
      "instance(provider).responseModes.has(mode)",
    );
    expect([...registryOf(ours()).keys()]).toEqual(["query"]);
  });
});
