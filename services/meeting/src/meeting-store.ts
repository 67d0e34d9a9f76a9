import type { IdempotentRequest, ResponseCodec } from "@svc/platform/db";

/** scheduled → live (someone entered the room) → ended, or cancelled before it ended. docs/decisions/0007-meeting-status-follows-the-room.md. */
export type MeetingStatus = "scheduled" | "live" | "ended" | "cancelled";

/** Why a meeting ended: through the API, emptied past its grace period, its planned end passed with nobody in it, or a host in the room. */
export type MeetingEndCause = "api" | "empty" | "end_passed" | "host";

export type ScreenShare = "everyone" | "hosts";

/** Whether a meeting may be recorded, and whether that starts by itself (docs/meeting-room.md, "Recording"). */
export type RecordingMode = "off" | "manual" | "auto";

/** Whether a meeting's recorded audio is transcribed, per speaker (docs/transcription.md). */
export type TranscriptionMode = "off" | "on";

/** How the meeting room behaves (docs/meeting-room.md). */
export interface MeetingSettings {
  lobby: boolean;
  screenShare: ScreenShare;
  noShowAfterMinutes: number;
  recording: RecordingMode;
  transcription: TranscriptionMode;
}

/** The fields a scheduling tool may change. */
export interface MeetingDetails {
  title: string;
  start: Date | null;
  /** The planned end, when one was given. */
  end: Date | null;
  attendees: string[];
  hosts: string[];
  settings: MeetingSettings;
}

/** A meeting as it is created: its details, whose it is and who created it. */
export interface NewMeeting extends MeetingDetails {
  id: string;
  orgId: string;
  createdByUserId: string;
  createdByClientId: string | null;
}

export interface StoredMeeting extends NewMeeting {
  status: MeetingStatus;
  /** A host locked the room: nobody new enters. */
  roomLocked: boolean;
  createdAt: Date;
  endedAt: Date | null;
  cancelledAt: Date | null;
  /** When its media room was first opened (a join grant, or someone entering); null: it never had one. */
  roomOpenedAt: Date | null;
}

export interface MeetingPage {
  meetings: StoredMeeting[];
  /** The `seq` to continue after (exclusive), when there are more. */
  nextAfterSeq: string | null;
}

export interface MeetingFilter {
  status: MeetingStatus | null;
  /** Start at or after. */
  startFrom: Date | null;
  /** Start before. */
  startBefore: Date | null;
  /** Text in the title or in an invited person's address (ignoring case); null: any. */
  search: string | null;
}

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
 * Postgres: db/pg-meeting-store.ts. The meeting's records above are this store's: handlers and db/ import them from here.
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
