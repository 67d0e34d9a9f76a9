import type { Pool } from "@svc/platform";
import { findActiveApiKeyByHash } from "../db/api-keys.ts";
import { API_KEY_PREFIX, hasApiKeyShape } from "./api-key.ts";
import type { CredentialVerifier } from "./verified-credential.ts";

/** API keys: full access, no scopes, valid until revoked. */
export function apiKeyVerifier(db: Pool): CredentialVerifier {
  return {
    prefix: API_KEY_PREFIX,
    async verify(token, tokenHash) {
      if (!hasApiKeyShape(token)) return null;
      const key = await findActiveApiKeyByHash(db, tokenHash);
      if (!key) return null;
      return { kind: "api_key", userId: key.userId, orgId: key.orgId, scopes: [], clientId: "", apiKeyId: key.keyId };
    },
  };
}
