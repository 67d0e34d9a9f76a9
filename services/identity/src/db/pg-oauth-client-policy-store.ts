import { fromSnakeCaseRow, inTransaction, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import {
  ALLOW_LIST_MAX_CLIENTS,
  type AllowClientOutcome,
  type AllowedOAuthClientRecord,
  type OAuthClientPolicyMode,
  type OAuthClientPolicyRecord,
  type OAuthClientPolicyStore,
} from "../oauth-stores.ts";

/**
 * OAuthClientPolicyStore on identity.organizations.oauth_client_policy and identity.oauth_client_allow_list,
 * in two parts: reading the policy and changing it.
 */
export function pgOAuthClientPolicyStore(pool: Pool): OAuthClientPolicyStore {
  return { ...policyReads(pool), ...policyChanges(pool) };
}

function policyReads(pool: Pool): Pick<OAuthClientPolicyStore, "policyOf" | "allows"> {
  return {
    /** The organization's policy and its listed clients (oldest first); undefined for no such organization. */
    async policyOf(orgId: string): Promise<OAuthClientPolicyRecord | undefined> {
      const organization = await pool.query<{ oauth_client_policy: OAuthClientPolicyMode }>("SELECT oauth_client_policy FROM organizations WHERE id = $1", [
        orgId,
      ]);
      if (organization.rowCount !== 1) return undefined;
      const { rows } = await pool.query<SnakeCaseRow<AllowedOAuthClientRecord>>(
        `SELECT a.client_id, c.name, o.name AS organization_name, a.added_at
           FROM oauth_client_allow_list a
           JOIN oauth_clients c ON c.client_id = a.client_id
           JOIN organizations o ON o.id = c.org_id
          WHERE a.org_id = $1
          ORDER BY a.added_at, a.client_id`,
        [orgId],
      );
      return {
        mode: organization.rows[0]!.oauth_client_policy,
        allowedClients: rows.map((row) => fromSnakeCaseRow<AllowedOAuthClientRecord>(row)),
      };
    },

    /**
     * Whether a member of `orgId` may authorize `clientId` now: the organization's own client
     * always; another organization's when the mode is `all` or the client is listed.
     */
    async allows(orgId: string, clientId: string): Promise<boolean> {
      if (!isStorableClientId(clientId)) return false;
      const { rows } = await pool.query<{ allowed: boolean }>(
        `SELECT c.org_id = o.id
                OR o.oauth_client_policy = 'all'
                OR EXISTS (SELECT 1 FROM oauth_client_allow_list a WHERE a.org_id = o.id AND a.client_id = c.client_id) AS allowed
           FROM organizations o, oauth_clients c
          WHERE o.id = $1 AND c.client_id = $2`,
        [orgId, clientId],
      );
      return rows[0]?.allowed === true;
    },
  };
}

/** Each change of an organization's list is serialized on the organization's row, so its size bound holds. */
function policyChanges(pool: Pool): Pick<OAuthClientPolicyStore, "setMode" | "allow" | "disallow"> {
  return {
    /**
     * Sets the mode. Switching to `listed` ends, in the same transaction, every authorization a
     * member holds for a client that is now refused; answers the deleted access tokens' hashes.
     */
    async setMode(orgId: string, mode: OAuthClientPolicyMode): Promise<{ revokedAccessTokens: string[] } | undefined> {
      return inTransaction(pool, async (client) => {
        const updated = await client.query("UPDATE organizations SET oauth_client_policy = $2 WHERE id = $1", [orgId, mode]);
        if (updated.rowCount !== 1) return undefined;
        return { revokedAccessTokens: await endRefusedGrants(client, orgId) };
      });
    },

    /** Lists any organization's client for this organization's members. Listing a listed client again changes nothing. */
    async allow(orgId: string, clientId: string, addedBy: string): Promise<AllowClientOutcome> {
      if (!isStorableClientId(clientId)) return "unknown-client";
      return inTransaction(pool, async (client) => {
        // Serializes changes to one organization's list, so the size bound holds under concurrency.
        await client.query("SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE", [orgId]);
        const owner = await client.query<{ org_id: string }>("SELECT org_id FROM oauth_clients WHERE client_id = $1", [clientId]);
        if (owner.rowCount !== 1) return "unknown-client";
        if (owner.rows[0]!.org_id === orgId) return "own-client";
        const count = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM oauth_client_allow_list WHERE org_id = $1 AND client_id <> $2", [
          orgId,
          clientId,
        ]);
        if (count.rows[0]!.n >= ALLOW_LIST_MAX_CLIENTS) return "list-full";
        await client.query("INSERT INTO oauth_client_allow_list (org_id, client_id, added_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
          orgId,
          clientId,
          addedBy,
        ]);
        return "listed";
      });
    },

    /**
     * Takes a client off the organization's list; with the `listed` mode, members' authorizations
     * of it end in the same transaction. Undefined when it was not listed.
     */
    async disallow(orgId: string, clientId: string): Promise<{ revokedAccessTokens: string[] } | undefined> {
      if (!isStorableClientId(clientId)) return undefined;
      return inTransaction(pool, async (client) => {
        await client.query("SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE", [orgId]);
        const removed = await client.query("DELETE FROM oauth_client_allow_list WHERE org_id = $1 AND client_id = $2", [orgId, clientId]);
        if (removed.rowCount !== 1) return undefined;
        return { revokedAccessTokens: await endRefusedGrants(client, orgId) };
      });
    },
  };
}

/**
 * With the `listed` mode, deletes every grant (and its codes and tokens) that a user of the
 * organization holds for another organization's client not on its list. Answers the hashes of
 * the deleted access tokens, to mark them in the verification cache.
 */
async function endRefusedGrants(client: PoolClient, orgId: string): Promise<string[]> {
  const { rows } = await client.query<{ id_hash: string | null }>(
    `DELETE FROM oauth_artifacts WHERE grant_id IN (
       SELECT g.grant_id FROM oauth_artifacts g
         JOIN users u ON u.id::text = g.payload->>'accountId'
         JOIN oauth_clients c ON c.client_id = g.client_id
         JOIN organizations o ON o.id = u.org_id
        WHERE g.model = 'Grant' AND u.org_id = $1 AND c.org_id <> $1 AND o.oauth_client_policy = 'listed'
          AND NOT EXISTS (SELECT 1 FROM oauth_client_allow_list a WHERE a.org_id = $1 AND a.client_id = g.client_id))
     RETURNING CASE WHEN model = 'AccessToken' THEN id_hash END AS id_hash`,
    [orgId],
  );
  return rows.flatMap((row) => (row.id_hash ? [row.id_hash] : []));
}

/** Client ids are 1-100 characters (the column's check) without NUL, which Postgres text cannot hold. */
const isStorableClientId = (clientId: string) => clientId.length >= 1 && clientId.length <= 100 && !clientId.includes("\0");
