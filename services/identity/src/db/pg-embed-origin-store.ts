import { UUID } from "@svc/platform/contract";
import type { Pool } from "@svc/platform/db";
import type { EmbedOriginStore } from "../embedding/embed-origin-store.ts";

/** EmbedOriginStore on identity.organizations.embed_origins. */
export function pgEmbedOriginStore(pool: Pool): EmbedOriginStore {
  return {
    async originsOf(orgId) {
      // Not a UUID: no such organization (the column is uuid; Postgres would refuse the text).
      if (!UUID.test(orgId)) return undefined;
      const { rows } = await pool.query<{ embed_origins: string[] }>("SELECT embed_origins FROM organizations WHERE id = $1", [orgId]);
      return rows[0]?.embed_origins;
    },
    async replace(orgId, origins) {
      const updated = await pool.query("UPDATE organizations SET embed_origins = $2 WHERE id = $1", [orgId, origins]);
      return updated.rowCount === 1;
    },
  };
}
