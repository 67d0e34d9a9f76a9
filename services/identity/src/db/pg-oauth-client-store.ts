import { fromSnakeCaseRow, inTransaction, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import type { OAuthClientChange, OAuthClientRecord, OAuthClientStore } from "../oauth-stores.ts";

type OAuthClientRow = SnakeCaseRow<OAuthClientRecord>;
const fromRow = fromSnakeCaseRow<OAuthClientRecord>;

const COLUMNS = "client_id, org_id, name, redirect_uris, scopes, secret_hash, require_pkce, created_at";

/** OAuthClientStore on identity.oauth_clients, in two parts: reading clients and changing them. */
export function pgOAuthClientStore(pool: Pool): OAuthClientStore {
  return { ...clientReads(pool), ...clientChanges(pool) };
}

function clientReads(pool: Pool): Pick<OAuthClientStore, "find" | "registeringOrganizationName" | "listByOrg" | "findInOrg" | "organizationExists"> {
  return {
    async find(clientId: string): Promise<OAuthClientRecord | undefined> {
      // Whatever a browser sends as client_id reaches here; text Postgres cannot hold (NUL) or
      // longer than any client id names no client, rather than failing the query.
      if (!isStorableClientId(clientId)) return undefined;
      const { rows } = await pool.query<OAuthClientRow>(`SELECT ${COLUMNS} FROM oauth_clients WHERE client_id = $1`, [clientId]);
      return rows[0] && fromRow(rows[0]);
    },

    /** The name of the organization that registered the client (the consent page shows it). */
    async registeringOrganizationName(clientId: string): Promise<string | undefined> {
      if (!isStorableClientId(clientId)) return undefined;
      const { rows } = await pool.query<{ name: string }>("SELECT o.name FROM oauth_clients c JOIN organizations o ON o.id = c.org_id WHERE c.client_id = $1", [
        clientId,
      ]);
      return rows[0]?.name;
    },

    async listByOrg(orgId: string): Promise<OAuthClientRecord[]> {
      const { rows } = await pool.query<OAuthClientRow>(`SELECT ${COLUMNS} FROM oauth_clients WHERE org_id = $1 ORDER BY created_at, client_id`, [orgId]);
      return rows.map(fromRow);
    },

    async findInOrg(orgId: string, clientId: string): Promise<OAuthClientRecord | undefined> {
      if (!isStorableClientId(clientId)) return undefined;
      const { rows } = await pool.query<OAuthClientRow>(`SELECT ${COLUMNS} FROM oauth_clients WHERE client_id = $1 AND org_id = $2`, [clientId, orgId]);
      return rows[0] && fromRow(rows[0]);
    },

    async organizationExists(orgId: string): Promise<boolean> {
      const { rowCount } = await pool.query("SELECT 1 FROM organizations WHERE id = $1", [orgId]);
      return rowCount === 1;
    },
  };
}

/** Changing a client ends what was issued under what it no longer allows, in the same transaction. */
function clientChanges(pool: Pool): Pick<OAuthClientStore, "create" | "updateInOrg" | "rotateSecretInOrg" | "delete"> {
  return {
    /** Inserts the client; `undefined` when the organization does not exist. */
    async create(client: Omit<OAuthClientRecord, "createdAt" | "requirePkce"> & { requirePkce?: boolean }): Promise<OAuthClientRecord | undefined> {
      const { rows } = await pool.query<OAuthClientRow>(
        `INSERT INTO oauth_clients (client_id, org_id, name, redirect_uris, scopes, secret_hash, require_pkce)
         SELECT $1, id, $3, $4, $5, $6, $7 FROM organizations WHERE id = $2
         RETURNING ${COLUMNS}`,
        [client.clientId, client.orgId, client.name, client.redirectUris, client.scopes, client.secretHash, client.requirePkce ?? false],
      );
      return rows[0] && fromRow(rows[0]);
    },

    /**
     * Changes name, redirect URIs and scopes of the organization's client. When a scope was
     * removed, every code, token and grant of the client is deleted in the same transaction
     * (users approve again with the new allowance); returns the deleted access tokens' hashes.
     */
    async updateInOrg(
      orgId: string,
      clientId: string,
      fields: OAuthClientChange,
    ): Promise<{ client: OAuthClientRecord; revokedAccessTokens: string[] } | undefined> {
      return inTransaction(pool, async (client) => {
        const before = await client.query<{ scopes: string[] }>("SELECT scopes FROM oauth_clients WHERE client_id = $1 AND org_id = $2 FOR UPDATE", [
          clientId,
          orgId,
        ]);
        if (before.rowCount !== 1) return undefined;
        const { rows } = await client.query<OAuthClientRow>(
          `UPDATE oauth_clients SET name = $3, redirect_uris = $4, scopes = $5, require_pkce = $6 WHERE client_id = $1 AND org_id = $2 RETURNING ${COLUMNS}`,
          [clientId, orgId, fields.name, fields.redirectUris, fields.scopes, fields.requirePkce],
        );
        const narrowed = before.rows[0]!.scopes.some((scope) => !fields.scopes.includes(scope));
        let revokedAccessTokens: string[] = [];
        if (narrowed) {
          const deleted = await client.query<{ id_hash: string }>(
            "DELETE FROM oauth_artifacts WHERE client_id = $1 RETURNING CASE WHEN model = 'AccessToken' THEN id_hash END AS id_hash",
            [clientId],
          );
          revokedAccessTokens = deleted.rows.flatMap((row) => (row.id_hash ? [row.id_hash] : []));
        }
        return { client: fromRow(rows[0]!), revokedAccessTokens };
      });
    },

    /** Replaces the secret hash of the organization's client: the old secret stops working at once. */
    async rotateSecretInOrg(orgId: string, clientId: string, secretHash: string): Promise<OAuthClientRecord | undefined> {
      const { rows } = await pool.query<OAuthClientRow>(`UPDATE oauth_clients SET secret_hash = $3 WHERE client_id = $1 AND org_id = $2 RETURNING ${COLUMNS}`, [
        clientId,
        orgId,
        secretHash,
      ]);
      return rows[0] && fromRow(rows[0]);
    },

    /**
     * Deletes the client and every code, token and grant issued to it, in one transaction.
     * Returns the hashes of the deleted access tokens (to evict them from the verification
     * cache), or `undefined` when there was no such client (in `orgId`, when given).
     */
    async delete(clientId: string, orgId?: string): Promise<string[] | undefined> {
      return inTransaction(pool, async (client) => {
        const deleted = await client.query("DELETE FROM oauth_clients WHERE client_id = $1 AND ($2::uuid IS NULL OR org_id = $2)", [clientId, orgId ?? null]);
        if (deleted.rowCount !== 1) return undefined;
        const { rows } = await client.query<{ id_hash: string }>(
          "DELETE FROM oauth_artifacts WHERE client_id = $1 RETURNING CASE WHEN model = 'AccessToken' THEN id_hash END AS id_hash",
          [clientId],
        );
        return rows.flatMap((row) => (row.id_hash ? [row.id_hash] : []));
      });
    },
  };
}

/** Client ids are 1-100 characters (the column's check) without NUL, which Postgres text cannot hold. */
const isStorableClientId = (clientId: string) => clientId.length >= 1 && clientId.length <= 100 && !clientId.includes("\0");
