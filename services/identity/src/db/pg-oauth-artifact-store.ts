import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import type {
  AccessTokenRecord,
  AuthorizedGrantRecord,
  OAuthArtifactStore,
  ProviderArtifactStore,
  StoredArtifact,
  UserAuthorizationStore,
} from "../oauth-stores.ts";

/**
 * OAuthArtifactStore on identity.oauth_artifacts: what oidc-provider persists, keyed by the SHA-256
 * of each artifact's id (callers pass hashes, never ids), read in two parts: as oidc-provider's
 * storage and as the users' authorizations. Expired rows are invisible to every read.
 */
export function pgOAuthArtifactStore(pool: Pool): OAuthArtifactStore {
  return { ...providerArtifacts(pool), ...userAuthorizations(pool) };
}

/** The one read of a single artifact: by one of its lookup columns, and only while it has not expired. */
async function findUnexpired(pool: Pool, model: string, column: "id_hash" | "session_uid", value: string): Promise<StoredArtifact | undefined> {
  const { rows } = await pool.query<SnakeCaseRow<StoredArtifact>>(
    `SELECT payload, consumed_at FROM oauth_artifacts WHERE model = $1 AND ${column} = $2 AND expires_at > now()`,
    [model, value],
  );
  const row = rows[0];
  return row && fromSnakeCaseRow<StoredArtifact>(row);
}

/** The artifacts as oidc-provider's storage (oauth/storage/artifact-adapter.ts) and its purge. */
function providerArtifacts(pool: Pool): ProviderArtifactStore {
  return {
    async upsert(model, idHash, payload, indexes, expiresInSeconds) {
      await pool.query(
        `INSERT INTO oauth_artifacts (model, id_hash, payload, grant_id, client_id, session_uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         ON CONFLICT (model, id_hash) DO UPDATE
           SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, client_id = EXCLUDED.client_id,
               session_uid = EXCLUDED.session_uid, expires_at = EXCLUDED.expires_at`,
        [model, idHash, payload, indexes.grantId ?? null, indexes.clientId ?? null, indexes.sessionUid ?? null, expiresInSeconds],
      );
    },

    find: (model: string, idHash: string) => findUnexpired(pool, model, "id_hash", idHash),

    findBySessionUid: (model: string, sessionUid: string) => findUnexpired(pool, model, "session_uid", sessionUid),

    /**
     * Marks a code or refresh token used. The update is conditional, so of two concurrent
     * exchanges of one value exactly one gets `true`.
     */
    async consume(model: string, idHash: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        "UPDATE oauth_artifacts SET consumed_at = now() WHERE model = $1 AND id_hash = $2 AND consumed_at IS NULL AND expires_at > now()",
        [model, idHash],
      );
      return rowCount === 1;
    },

    async destroy(model: string, idHash: string) {
      await pool.query("DELETE FROM oauth_artifacts WHERE model = $1 AND id_hash = $2", [model, idHash]);
    },

    /** Deletes one kind of artifact of a grant; returns the hashes of what was deleted. */
    async destroyByGrant(model: string, grantId: string): Promise<string[]> {
      const { rows } = await pool.query<{ id_hash: string }>("DELETE FROM oauth_artifacts WHERE model = $1 AND grant_id = $2 RETURNING id_hash", [
        model,
        grantId,
      ]);
      return rows.map((row) => row.id_hash);
    },

    /** Deletes the grant and everything issued from it; returns the hashes of its access tokens. */
    async destroyGrant(grantId: string): Promise<string[]> {
      const { rows } = await pool.query<{ id_hash: string }>(
        "DELETE FROM oauth_artifacts WHERE grant_id = $1 RETURNING CASE WHEN model = 'AccessToken' THEN id_hash END AS id_hash",
        [grantId],
      );
      return rows.flatMap((row) => (row.id_hash ? [row.id_hash] : []));
    },

    /** Removes rows that expired more than `graceSeconds` ago, at most `limit` per call. */
    async purgeExpired(graceSeconds: number, limit = 1000): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM oauth_artifacts WHERE ctid IN (
           SELECT ctid FROM oauth_artifacts WHERE expires_at < now() - make_interval(secs => $1) LIMIT $2)`,
        [graceSeconds, limit],
      );
      return rowCount ?? 0;
    },
  };
}

/** The artifacts as users' authorizations: access tokens to verify, grants to list and revoke, browser sessions to end. */
function userAuthorizations(pool: Pool): UserAuthorizationStore {
  return {
    /**
     * The live access token with this hash, with its user's organization (any organization's
     * user may authorize any client). A token counts only while its grant, its client and its user
     * still exist: revoking a grant or deleting a client ends every token issued under it.
     */
    async findAccessToken(idHash: string): Promise<AccessTokenRecord | undefined> {
      const { rows } = await pool.query<SnakeCaseRow<AccessTokenRecord>>(
        // A token issued without a scope has none: the empty string, as oidc-provider writes no `scope`.
        `SELECT u.id AS user_id, u.org_id, u.role, c.client_id, coalesce(t.payload->>'scope', '') AS scope, t.expires_at
           FROM oauth_artifacts t
           JOIN oauth_artifacts g ON g.model = 'Grant' AND g.grant_id = t.grant_id AND g.expires_at > now()
           JOIN oauth_clients c ON c.client_id = t.client_id
           JOIN users u ON u.id::text = t.payload->>'accountId' AND u.deactivated_at IS NULL
          WHERE t.model = 'AccessToken' AND t.id_hash = $1 AND t.expires_at > now()`,
        [idHash],
      );
      const row = rows[0];
      return row && fromSnakeCaseRow<AccessTokenRecord>(row);
    },

    /** The user's live grants (authorized applications), newest first, with the client's name. */
    async listGrantsOfUser(userId: string): Promise<AuthorizedGrantRecord[]> {
      const { rows } = await pool.query<SnakeCaseRow<Omit<AuthorizedGrantRecord, "scopes">> & { resources: Record<string, string> | null }>(
        // granted_at: oidc-provider's `iat` (seconds since the epoch; a grant without one counts as granted at the epoch).
        `SELECT g.grant_id, c.client_id, c.name AS client_name, g.payload->'resources' AS resources,
                to_timestamp(coalesce((g.payload->>'iat')::bigint, 0)) AS granted_at
           FROM oauth_artifacts g JOIN oauth_clients c ON c.client_id = g.client_id
          WHERE g.model = 'Grant' AND g.payload->>'accountId' = $1::text AND g.expires_at > now()
          ORDER BY (g.payload->>'iat')::bigint DESC NULLS LAST, g.grant_id`,
        [userId],
      );
      // Converted, not renamed: a grant's scopes are every scope of each of its resources, once.
      return rows.map(({ resources, ...columns }) => ({
        ...fromSnakeCaseRow<Omit<AuthorizedGrantRecord, "scopes">>(columns),
        scopes: [...new Set(Object.values(resources ?? {}).flatMap((scope) => String(scope).split(" ").filter(Boolean)))],
      }));
    },

    /**
     * Ends the user's OAuth browser sessions (oidc-provider's `_session` cookie, 24 hours) and
     * their sign-in and consent steps in progress: a deactivated user must not approve anything
     * from a session opened before. Answers how many were ended.
     */
    async endBrowserSessionsOf(userId: string): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM oauth_artifacts
          WHERE (model = 'Session' AND payload->>'accountId' = $1::text)
             OR (model = 'Interaction' AND (payload->'session'->>'accountId' = $1::text OR payload->'result'->'login'->>'accountId' = $1::text))`,
        [userId],
      );
      return rowCount ?? 0;
    },

    /** Whether this grant exists, is live and belongs to the user. */
    async isGrantOfUser(grantId: string, userId: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        "SELECT 1 FROM oauth_artifacts WHERE model = 'Grant' AND grant_id = $1 AND payload->>'accountId' = $2::text AND expires_at > now()",
        [grantId, userId],
      );
      return rowCount === 1;
    },
  };
}
