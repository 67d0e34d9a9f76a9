import type { Pool, PoolClient } from "@svc/platform/db";

export interface ChatMessageRecord {
  id: string;
  participantId: string;
  displayName: string;
  text: string;
  sentAt: Date;
}

interface MessageRow {
  id: string;
  participant_id: string;
  display_name: string;
  body: string;
  sent_at: Date;
}

const toMessage = (row: MessageRow): ChatMessageRecord => ({
  id: row.id,
  participantId: row.participant_id,
  displayName: row.display_name,
  text: row.body,
  sentAt: row.sent_at,
});

type Queryable = Pool | PoolClient;

/** Stores a message of a meeting that has not ended (undefined when it has: nothing is kept after). */
/**
 * Stores a message of an open meeting that holds fewer than `cap` messages; undefined when the
 * meeting has closed or is full (the caller tells which).
 */
export async function insertChatMessage(
  db: Queryable,
  message: { meetingId: string; participantId: string; displayName: string; text: string },
  cap: number,
): Promise<ChatMessageRecord | undefined> {
  const { rows } = await db.query<MessageRow>(
    `INSERT INTO room_chat_messages (meeting_id, participant_id, display_name, body)
     SELECT $1, $2, $3, $4 FROM meetings WHERE id = $1 AND status IN ('scheduled', 'live')
        AND (SELECT count(*) FROM room_chat_messages WHERE meeting_id = $1) < $5
     RETURNING id, participant_id, display_name, body, sent_at`,
    [message.meetingId, message.participantId, message.displayName, message.text, cap],
  );
  return rows[0] ? toMessage(rows[0]) : undefined;
}

/** The messages of a meeting, oldest first (at most the last 500). */
export async function chatMessagesOf(db: Queryable, meetingId: string): Promise<ChatMessageRecord[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT * FROM (SELECT id, participant_id, display_name, body, sent_at FROM room_chat_messages WHERE meeting_id = $1 ORDER BY id DESC LIMIT 500) last
      ORDER BY id`,
    [meetingId],
  );
  return rows.map(toMessage);
}

/** Forgets a meeting's chat: called in the transaction that ends or cancels it. */
export async function deleteChatOf(client: PoolClient, meetingId: string): Promise<void> {
  await client.query("DELETE FROM room_chat_messages WHERE meeting_id = $1", [meetingId]);
}
