import type { Pool, PoolClient } from "@svc/platform/db";
import type { TranscriptionMode } from "../meeting-store.ts";

type Queryable = Pool | PoolClient;

/** The organization's transcription default for new meetings: `off` until an admin sets it. */
export async function transcriptionDefaultOf(db: Queryable, orgId: string): Promise<TranscriptionMode> {
  const { rows } = await db.query<{ transcription: TranscriptionMode }>("SELECT transcription FROM organization_meeting_settings WHERE org_id = $1", [orgId]);
  return rows[0]?.transcription ?? "off";
}

export async function setTranscriptionDefault(db: Queryable, orgId: string, mode: TranscriptionMode): Promise<TranscriptionMode> {
  const { rows } = await db.query<{ transcription: TranscriptionMode }>(
    `INSERT INTO organization_meeting_settings (org_id, transcription) VALUES ($1, $2)
     ON CONFLICT (org_id) DO UPDATE SET transcription = EXCLUDED.transcription, updated_at = now()
     RETURNING transcription`,
    [orgId, mode],
  );
  return rows[0]!.transcription;
}
