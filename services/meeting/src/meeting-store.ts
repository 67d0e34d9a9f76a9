import type { IdempotentRequest, ResponseCodec } from "@svc/platform/db";
import type { MeetingFilter, MeetingPage, MeetingSettings, NewMeeting, StoredMeeting } from "./db/meetings.ts";

/** How a new meeting's answer is kept for replays of the same Idempotency-Key (and built the first time). */
export interface IdempotentCreation<T> {
  /** Absent when the caller sent no key: the meeting is just stored. */
  request: IdempotentRequest | undefined;
  codec: ResponseCodec<T>;
  answer: (meeting: StoredMeeting) => T;
}

/**
 * The meetings the API handlers read and create. Every read but `get` is limited to one
 * organization: another organization's meeting does not exist for the caller. Changes of a
 * meeting's state go through `MeetingLifecycle`, which holds the rules of its life.
 * Postgres: db/pg-meeting-store.ts.
 */
export interface MeetingStore {
  /** Stores the meeting; with an idempotent request, a repeat returns the first answer (`replayed`). */
  create<T>(meeting: NewMeeting, idempotent: IdempotentCreation<T>): Promise<{ value: T; replayed: boolean }>;
  getOfOrg(orgId: string, id: string): Promise<StoredMeeting | undefined>;
  /** By id alone, for the public join page (the id is the capability). */
  get(id: string): Promise<StoredMeeting | undefined>;
  /** Newest first; `afterSeq` continues a page (exclusive). */
  list(orgId: string, page: { limit: number; afterSeq: string | null; filter: MeetingFilter }): Promise<MeetingPage>;
  /** What each meeting has seen (people who joined, recordings), for a list page. */
  activitiesOf(meetings: StoredMeeting[]): Promise<Map<string, MeetingActivity>>;
  /** The settings a new meeting of the organization has unless its request gives its own (its transcription default). */
  settingsDefaultsOf(orgId: string): Promise<MeetingSettings>;
}

export interface MeetingActivity {
  /** People who entered the room, told apart as attendance.ts does. */
  joinedCount: number;
  /** Recordings that did not fail. */
  recordingCount: number;
}
