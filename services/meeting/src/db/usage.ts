import type { Pool } from "@svc/platform/db";
import type { Usage } from "../visit-store.ts";

const tenth = (value: number) => Math.round(value * 10) / 10;

/**
 * An organization's use over the last `days` UTC days, today included. A visit counts on each day
 * it overlaps, for the part of it in that day (an open visit until now), so a meeting across
 * midnight is in both days and no minute is counted twice. Recordings: minutes of those that
 * started in the period and have a length, and the files stored now (ready ones).
 */
export async function usageOf(pool: Pool, orgId: string, days: number): Promise<Usage> {
  // Days and visits in UTC wall time (timestamp without time zone), whatever the session's zone.
  const { rows } = await pool.query<{ date: string; meetings: number; seconds: number }>(
    `WITH day AS (
       SELECT day_start, day_start + interval '1 day' AS day_end
         FROM generate_series(1, $2::int) AS back(n),
              LATERAL (SELECT ((now() AT TIME ZONE 'UTC')::date - (back.n - 1))::timestamp AS day_start) AS start
     ), visit AS (
       SELECT r.meeting_id, r.joined_at AT TIME ZONE 'UTC' AS joined, COALESCE(r.left_at, now()) AT TIME ZONE 'UTC' AS left_
         FROM room_participants r JOIN meetings m ON m.id = r.meeting_id
        WHERE m.org_id = $1 AND COALESCE(r.left_at, now()) AT TIME ZONE 'UTC' >= (SELECT min(day_start) FROM day)
          -- Only meetings that can have had people in the period: live, or closed within it.
          AND (m.status = 'live' OR COALESCE(m.ended_at, m.cancelled_at) AT TIME ZONE 'UTC' >= (SELECT min(day_start) FROM day))
     )
     SELECT to_char(day.day_start, 'YYYY-MM-DD') AS date,
            count(DISTINCT visit.meeting_id)::int AS meetings,
            -- Only the days' own visits (LEAST and GREATEST would turn a day without any into a whole day).
            COALESCE(sum(EXTRACT(EPOCH FROM LEAST(visit.left_, day.day_end) - GREATEST(visit.joined, day.day_start))) FILTER (WHERE visit.meeting_id IS NOT NULL), 0)::float8 AS seconds
       FROM day LEFT JOIN visit ON visit.joined < day.day_end AND visit.left_ > day.day_start
      GROUP BY day.day_start ORDER BY day.day_start`,
    [orgId, days],
  );
  const { rows: recorded } = await pool.query<{ recorded_ms: number; stored_bytes: number; stored: number }>(
    `SELECT COALESCE(sum(duration_ms) FILTER (WHERE started_at AT TIME ZONE 'UTC' >= ((now() AT TIME ZONE 'UTC')::date - ($2::int - 1))::timestamp), 0)::float8 AS recorded_ms,
            COALESCE(sum(size_bytes) FILTER (WHERE status = 'ready'), 0)::float8 AS stored_bytes,
            (count(*) FILTER (WHERE status = 'ready'))::int AS stored
       FROM recordings WHERE org_id = $1`,
    [orgId, days],
  );
  const totals = recorded[0]!;
  return {
    days: rows.map((row) => ({ date: row.date, meetings: row.meetings, participantMinutes: tenth(row.seconds / 60) })),
    recordingMinutes: tenth(totals.recorded_ms / 60_000),
    storageBytes: totals.stored_bytes,
    recordingsStored: totals.stored,
  };
}
