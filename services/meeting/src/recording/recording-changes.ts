import type { Logger } from "@svc/platform";
import { inTransaction, type Pool, type PoolClient } from "@svc/platform/db";
import { insertOutboxEvent, type OutboxEvent } from "../db/outbox.ts";
import type { RecordingLayout } from "../recording-store.ts";
import type { Recorder } from "./recorder.ts";
import type { RecordingStorage } from "./recording-storage.ts";
import type { SpeakerTracks } from "./speaker-tracks.ts";

/** What the room's pages hear on topic `svc.recording` (gateway/web/meeting-room/room/recording-indicator.ts). */
/**
 * `started`: the recorder accepted and is starting (the room says "Starting…"); `capturing`: it
 * reports the run active, the room's media is being written ("Recording"), and `transcribed` when
 * the meeting's transcription is on, so each person's audio is written for its transcript too
 * (speaker-tracks.ts; the room says "Recording · Transcribing"); `stopped`.
 */
export type RecordingNotice =
  | { type: "started"; recordingId: string; layout: RecordingLayout }
  | { type: "capturing"; recordingId: string; layout: RecordingLayout; transcribed: boolean }
  | { type: "stopped"; recordingId: string };

export interface RecordingsDependencies {
  pool: Pool;
  recorder: Recorder;
  storage: RecordingStorage;
  /** Wakes the outbox relay after a transaction wrote events. */
  outboxWritten: () => void;
  /** Tells everyone in the meeting's room (a server data packet); best effort. */
  notifyRoom: (meetingId: string, notice: RecordingNotice) => Promise<void>;
  logger: Logger;
  retryAfterSeconds: number;
  startTimeoutSeconds: number;
  /** A recording whose recorder stayed out of the room this long has failed. */
  lostAfterMs: number;
  /** A stopped recording whose file is not finished after this long has failed. */
  finishTimeoutMs: number;
  /** Each speaker's own audio beside the recording, for its transcript (speaker-tracks.ts). */
  speakerTracks: Pick<SpeakerTracks, "recordingCapturing" | "recordingEnded" | "removeFilesOf" | "transcribed">;
}

/** The two ways every part of the recordings changes what others see: events in the outbox, and a notice to the room. */
export interface RecordingChanges {
  /**
   * Runs `change` in one transaction and writes the events it emits there too (so an event is
   * stored exactly when its change is), then wakes the outbox relay.
   */
  withEvents<T>(change: (client: PoolClient, emit: (event: OutboxEvent) => void) => Promise<T>): Promise<T>;
  /** Tells the meeting's room; a failure is logged, never thrown (the room's indicator is best effort). */
  tell(meetingId: string, notice: RecordingNotice): void;
}

export function recordingChanges(deps: RecordingsDependencies): RecordingChanges {
  return {
    async withEvents(change) {
      const events: OutboxEvent[] = [];
      const result = await inTransaction(deps.pool, async (client) => {
        const value = await change(client, (event) => events.push(event));
        for (const event of events) await insertOutboxEvent(client, event);
        return value;
      });
      if (events.length > 0) deps.outboxWritten();
      return result;
    },
    tell(meetingId, notice) {
      void deps
        .notifyRoom(meetingId, notice)
        .catch((error: unknown) => deps.logger.warn({ err: error, meetingId }, "could not tell the room about its recording"));
    },
  };
}
