import { createLogger } from "@svc/platform";
import type Provider from "oidc-provider";
import type { OAuthArtifactStore, OAuthClientRecord, OAuthClientStore } from "../../oauth-stores.ts";
import { createOAuthProvider } from "./provider-configuration.ts";

/**
 * For unit tests (not built: in-memory-*.ts): the real authorization server (createOAuthProvider) with its storage stubbed.
 * It knows the given clients; it stores nothing, finds no stored artifact and signs nobody in.
 */
export function stubbedOAuthProvider(issuer: string, clients: OAuthClientRecord[] = []): Provider {
  return createOAuthProvider({
    issuer,
    artifacts: { upsert: async () => undefined, find: async () => undefined } as unknown as OAuthArtifactStore,
    clients: { find: async (id: string) => clients.find((client) => client.clientId === id) } as unknown as OAuthClientStore,
    accessTokensRevoked: async () => undefined,
    accounts: { authenticate: async () => undefined, find: async () => undefined },
    clientPolicy: { allows: async () => true },
    cookieKeys: ["k".repeat(32)],
    signInAttempts: { recordFailure: async () => false },
    grantLifetimeSeconds: 3600,
    logger: createLogger("test", "silent"),
  });
}
