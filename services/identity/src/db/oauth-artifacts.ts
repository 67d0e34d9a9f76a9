import type { Pool } from "@svc/platform/db";

/** The columns an artifact is found and revoked by, besides its hashed id. */
export interface ArtifactIndexes {
  grantId?: string | undefined;
  clientId?: string | undefined;
  sessionUid?: string | undefined;
}

export interface StoredArtifact {
  payload: Record<string, unknown>;
  consumedAt: Date | null;
}

export interface AccessTokenRecord {
  userId: string;
  orgId: string;
  role: "admin" | "member";
  clientId: string;
  scope: string;
  expiresAt: Date;
}

/** The one read of a single artifact: by one of its lookup columns, and only while it has not expired. */
async function findUnexpired(pool: Pool, model: string, column: "id_hash" | "session_uid", value: string): Promise<StoredArtifact | undefined> {
  const { rows } = await pool.query<{ payload: Record<string, unknown>; consumed_at: Date | null }>(
    `SELECT payload, consumed_at FROM oauth_artifacts WHERE model = $1 AND ${column} = $2 AND expires_at > now()`,
    [model, value],
  );
  const row = rows[0];
  return row && { payload: row.payload, consumedAt: row.consumed_at };
}

/**
 * SQL for identity.oauth_artifacts: what oidc-provider persists, keyed by the SHA-256 of each
 * artifact's id. Callers pass hashes, never ids. Expired rows are invisible to every read.
 */
export function oauthArtifactQueries(pool: Pool) {
  return {
    async upsert(model: string, idHash: string, payload: object, indexes: ArtifactIndexes, expiresInSeconds: number) {
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

    /**
     * The live access token with this hash, with its user's organization (any organization's
     * user may authorize any client). A token counts only while its grant, its client and its user
     * still exist: revoking a grant or deleting a client ends every token issued under it.
     */
    async findAccessToken(idHash: string): Promise<AccessTokenRecord | undefined> {
      const { rows } = await pool.query<{
        user_id: string;
        org_id: string;
        role: "admin" | "member";
        client_id: string;
        scope: string | null;
        expires_at: Date;
      }>(
        `SELECT u.id AS user_id, u.org_id, u.role, c.client_id, t.payload->>'scope' AS scope, t.expires_at
           FROM oauth_artifacts t
           JOIN oauth_artifacts g ON g.model = 'Grant' AND g.grant_id = t.grant_id AND g.expires_at > now()
           JOIN oauth_clients c ON c.client_id = t.client_id
           JOIN users u ON u.id::text = t.payload->>'accountId' AND u.deactivated_at IS NULL
          WHERE t.model = 'AccessToken' AND t.id_hash = $1 AND t.expires_at > now()`,
        [idHash],
      );
      const row = rows[0];
      return row && { userId: row.user_id, orgId: row.org_id, role: row.role, clientId: row.client_id, scope: row.scope ?? "", expiresAt: row.expires_at };
    },

    /** The user's live grants (authorized applications), newest first, with the client's name. */
    async listGrantsOfUser(userId: string): Promise<Array<{ grantId: string; clientId: string; clientName: string; scopes: string[]; grantedAt: Date }>> {
      const { rows } = await pool.query<{ grant_id: string; client_id: string; name: string; resources: Record<string, string> | null; iat: string | null }>(
        `SELECT g.grant_id, c.client_id, c.name, g.payload->'resources' AS resources, g.payload->>'iat' AS iat
           FROM oauth_artifacts g JOIN oauth_clients c ON c.client_id = g.client_id
          WHERE g.model = 'Grant' AND g.payload->>'accountId' = $1::text AND g.expires_at > now()
          ORDER BY (g.payload->>'iat')::bigint DESC NULLS LAST, g.grant_id`,
        [userId],
      );
      return rows.map((row) => ({
        grantId: row.grant_id,
        clientId: row.client_id,
        clientName: row.name,
        scopes: [...new Set(Object.values(row.resources ?? {}).flatMap((scope) => String(scope).split(" ").filter(Boolean)))],
        grantedAt: new Date(Number(row.iat ?? 0) * 1000),
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

export type OAuthArtifactQueries = ReturnType<typeof oauthArtifactQueries>;
