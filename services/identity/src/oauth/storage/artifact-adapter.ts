import { errors, type Adapter, type AdapterPayload } from "oidc-provider";
import type { OAuthClientStore, ProviderArtifactStore } from "../../oauth-stores.ts";
import { hashToken } from "@svc/platform";
import { clientMetadata } from "../clients/client-metadata.ts";

export interface ArtifactAdapterDependencies {
  artifacts: ProviderArtifactStore;
  clients: OAuthClientStore;
  /** Called with the hashes of access tokens that stopped being valid, to evict them from caches. */
  accessTokensRevoked(tokenHashes: string[]): Promise<void>;
}

/** Models whose id is a credential presented to us, and that belong to a grant. */
const GRANT_BOUND = new Set(["AuthorizationCode", "AccessToken", "RefreshToken"]);

/**
 * oidc-provider's storage contract (upsert/find/findByUid/consume/destroy/revokeByGrantId), on
 * Postgres. oidc-provider only ever hands us the raw id (the code, the token, the session
 * cookie value), so every row is keyed by its SHA-256 and the id (`jti`) is dropped from the
 * stored payload and put back from the argument on `find`. Nothing stored can be presented.
 */
export function createArtifactAdapterFactory(deps: ArtifactAdapterDependencies): (model: string) => Adapter {
  return (model) => (model === "Client" ? clientAdapter(deps.clients) : artifactAdapter(model, deps));
}

function artifactAdapter(model: string, { artifacts, accessTokensRevoked }: ArtifactAdapterDependencies): Adapter {
  const revokeGrant = async (grantId: string) => {
    const accessTokenHashes = await artifacts.destroyGrant(grantId);
    if (accessTokenHashes.length > 0) await accessTokensRevoked(accessTokenHashes);
  };

  const restore = (id: string, stored: { payload: Record<string, unknown>; consumedAt: Date | null } | undefined) => {
    if (!stored) return undefined;
    const payload: AdapterPayload = { ...stored.payload, jti: id };
    if (stored.consumedAt) payload.consumed = Math.floor(stored.consumedAt.getTime() / 1000);
    return payload;
  };

  return {
    async upsert(id, payload, expiresIn) {
      // Every model this server uses has a lifetime (see LIFETIMES); nothing is kept forever.
      if (expiresIn === undefined) throw new Error(`${model} saved without a lifetime`);
      const { jti: _jti, consumed: _consumed, ...stored } = payload;
      if (model === "Interaction" && stored.session) {
        // The session's cookie value is copied into interactions but never read back by
        // oidc-provider: keep it out of the database.
        const { cookie: _cookie, ...session } = stored.session as Record<string, unknown>;
        stored.session = session as AdapterPayload["session"];
      }
      await artifacts.upsert(
        model,
        hashToken(id),
        stored,
        {
          grantId: model === "Grant" ? id : stored.grantId,
          clientId: stored.clientId,
          sessionUid: model === "Session" ? stored.uid : undefined,
        },
        expiresIn,
      );
    },

    async find(id) {
      return restore(id, await artifacts.find(model, hashToken(id)));
    },

    async findByUid(uid) {
      // Only oidc-provider's existence checks look sessions up by uid; the session id (the
      // cookie value) is not stored, so the instance it builds is never saved back.
      const stored = await artifacts.findBySessionUid(model, uid);
      return stored && { ...stored.payload };
    },

    async findByUserCode() {
      return undefined; // the device flow is disabled
    },

    async consume(id) {
      const idHash = hashToken(id);
      if (await artifacts.consume(model, idHash)) return;
      // oidc-provider checks `consumed` before calling this, so getting here means another request
      // exchanged the same code or refresh token at the same moment: a replay. Treat it as the
      // library treats a sequential one (RFC 6749 §4.1.2, RFC 9700 §4.14): revoke the grant.
      const stored = await artifacts.find(model, idHash);
      const grantId = stored?.payload.grantId;
      if (typeof grantId === "string") await revokeGrant(grantId);
      throw new errors.InvalidGrant(`${model === "RefreshToken" ? "refresh token" : "authorization code"} already used`);
    },

    async destroy(id) {
      if (model === "Grant") return revokeGrant(id);
      const idHash = hashToken(id);
      await artifacts.destroy(model, idHash);
      if (model === "AccessToken") await accessTokensRevoked([idHash]);
    },

    async revokeByGrantId(grantId) {
      if (!GRANT_BOUND.has(model)) return;
      const hashes = await artifacts.destroyByGrant(model, grantId);
      if (model === "AccessToken" && hashes.length > 0) await accessTokensRevoked(hashes);
    },
  };
}

/** Clients are managed through the admin API, never by oidc-provider: read-only here. */
function clientAdapter(clients: OAuthClientStore): Adapter {
  const readOnly = async () => {
    throw new Error("OAuth clients are managed through IdentityAdminService");
  };
  return {
    async find(id) {
      const client = await clients.find(id);
      return client && clientMetadata(client);
    },
    upsert: readOnly,
    consume: readOnly,
    destroy: readOnly,
    revokeByGrantId: readOnly,
    findByUid: readOnly,
    findByUserCode: readOnly,
  };
}
