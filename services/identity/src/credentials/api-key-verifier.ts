import type { Pool } from "@svc/platform/db";
import { findActiveApiKeyByHash } from "../db/api-keys.ts";
import { API_KEY_PREFIX, hasApiKeyShape } from "./api-key.ts";
import type { CredentialVerifier } from "./credential-verifier.ts";

/** API keys: full access (what their user's role allows), no scopes, valid until revoked or the user is deactivated. */
export function apiKeyVerifier(db: Pool): CredentialVerifier {
  return {
    prefix: API_KEY_PREFIX,
    async verify(token, tokenHash) {
      if (!hasApiKeyShape(token)) return null;
      const key = await findActiveApiKeyByHash(db, tokenHash);
      if (!key) return null;
      return { kind: "api_key", userId: key.userId, orgId: key.orgId, role: key.role, scopes: [], clientId: "", apiKeyId: key.keyId };
    },
  };
}
