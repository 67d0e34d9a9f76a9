import { createLogger } from "@svc/platform";
import type Provider from "oidc-provider";
import type { OAuthArtifactQueries } from "../../db/oauth-artifacts.ts";
import type { OAuthClientRecord, OAuthClientQueries } from "../../db/oauth-clients.ts";
import { createOAuthProvider } from "./provider-configuration.ts";

/**
 * For unit tests (not built: in-memory-*.ts): the real authorization server (createOAuthProvider) with its storage stubbed.
 * It knows the given clients; it stores nothing, finds no stored artifact and signs nobody in.
 */
export function stubbedOAuthProvider(issuer: string, clients: OAuthClientRecord[] = []): Provider {
  return createOAuthProvider({
    issuer,
    artifacts: { upsert: async () => undefined, find: async () => undefined } as unknown as OAuthArtifactQueries,
    clients: { find: async (id: string) => clients.find((client) => client.clientId === id) } as unknown as OAuthClientQueries,
    accessTokensRevoked: async () => undefined,
    accounts: { authenticate: async () => undefined, find: async () => undefined },
    cookieKeys: ["k".repeat(32)],
    signInAttempts: { recordFailure: async () => false },
    grantLifetimeSeconds: 3600,
    logger: createLogger("test", "silent"),
  });
}
