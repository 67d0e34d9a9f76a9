import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { ChatMessageRecord } from "../room-store.ts";

type MessageRow = SnakeCaseRow<ChatMessageRecord>;

/** The table's `body` is the message's `text`. */
const COLUMNS = "id, participant_id, display_name, body AS text, sent_at";

const toMessage = fromSnakeCaseRow<ChatMessageRecord>;

type Queryable = Pool | PoolClient;

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
     RETURNING ${COLUMNS}`,
    [message.meetingId, message.participantId, message.displayName, message.text, cap],
  );
  return rows[0] ? toMessage(rows[0]) : undefined;
}

/** The messages of a meeting, oldest first (at most the last 500). */
export async function chatMessagesOf(db: Queryable, meetingId: string): Promise<ChatMessageRecord[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT * FROM (SELECT ${COLUMNS} FROM room_chat_messages WHERE meeting_id = $1 ORDER BY id DESC LIMIT 500) last
      ORDER BY id`,
    [meetingId],
  );
  return rows.map(toMessage);
}

/** Forgets a meeting's chat: called in the transaction that ends or cancels it. */
export async function deleteChatOf(client: PoolClient, meetingId: string): Promise<void> {
  await client.query("DELETE FROM room_chat_messages WHERE meeting_id = $1", [meetingId]);
}
