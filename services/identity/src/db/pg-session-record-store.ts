import { randomUUID } from "node:crypto";
import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import type { SessionRecord, SessionRecordStore } from "../sessions/session-store.ts";

/** SessionRecordStore on identity.sessions. */
export function pgSessionRecordStore(pool: Pool): SessionRecordStore {
  return {
    async insert(session) {
      const { rows } = await pool.query<{ expires_at: Date }>(
        `INSERT INTO sessions (id, user_id, org_id, token_hash, csrf_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)) RETURNING expires_at`,
        [randomUUID(), session.userId, session.orgId, session.tokenHash, session.csrfHash, session.absoluteSeconds],
      );
      return rows[0]!.expires_at;
    },

    /**
     * The live session with this token hash: before its absolute end, used within the idle
     * timeout, and its user active. Reading it changes nothing (see `touch`).
     */
    async live(tokenHash: string, idleSeconds: number): Promise<SessionRecord | undefined> {
      const { rows } = await pool.query<SnakeCaseRow<SessionRecord>>(
        `SELECT s.id AS session_id, s.user_id, s.org_id, u.role, s.csrf_hash, s.expires_at
           FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE s.token_hash = $1 AND u.deactivated_at IS NULL
            AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => $2)`,
        [tokenHash, idleSeconds],
      );
      const row = rows[0];
      return row && fromSnakeCaseRow<SessionRecord>(row);
    },

    /** Moves a session's activity to now (its idle clock starts again). */
    async touch(sessionId: string): Promise<void> {
      await pool.query("UPDATE sessions SET last_seen_at = now() WHERE id = $1", [sessionId]);
    },

    async deleteByTokenHash(tokenHash: string): Promise<void> {
      await pool.query("DELETE FROM sessions WHERE token_hash = $1", [tokenHash]);
    },

    async deleteByUser(userId: string): Promise<void> {
      await pool.query("DELETE FROM sessions WHERE user_id = $1", [userId]);
    },

    /** Removes sessions past their absolute end or idle for longer than the idle timeout. */
    async purgeEnded(idleSeconds: number, limit = 1000): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM sessions WHERE id IN (
           SELECT id FROM sessions WHERE expires_at < now() OR last_seen_at < now() - make_interval(secs => $1) LIMIT $2)`,
        [idleSeconds, limit],
      );
      return rowCount ?? 0;
    },
  };
}
