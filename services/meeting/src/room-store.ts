import type { StoredMeeting } from "./meeting-store.ts";
import type { StoredRecording } from "./recording-store.ts";

export type LinkRole = "host" | "attendee" | "guest";

export interface ChatMessageRecord {
  id: string;
  participantId: string;
  displayName: string;
  text: string;
  sentAt: Date;
}

/** Who one participant identity (one join grant) is. */
export interface Admission {
  participantId: string;
  meetingId: string;
  role: LinkRole;
  email: string | null;
  linkId: string | null;
  displayName: string;
  removedAt: Date | null;
  /** Admitted by a host from the lobby (rather than granted at once). */
  admittedFromLobby: boolean;
}

export type LobbyStatus = "waiting" | "admitted" | "denied";

export interface LobbyEntryRecord {
  id: string;
  meetingId: string;
  displayName: string;
  role: "attendee" | "guest";
  email: string | null;
  linkId: string | null;
  visitorHash: Buffer | null;
  status: LobbyStatus;
  createdAt: Date;
}

/**
 * What the meeting room's handler reads and changes, one meeting at a time: the meeting, the
 * admissions (who each room session is), the lobby, the chat and the recording in progress. The
 * records are the store's: the handler imports them from here, never from `db/`.
 * Postgres: db/pg-room-store.ts.
 */
export interface RoomStore {
  /** The meeting by id alone (a room session of it is the permission). */
  meeting(meetingId: string): Promise<StoredMeeting | undefined>;
  /** Locks or unlocks the room of a scheduled or live meeting; false when it is neither. */
  setLocked(meetingId: string, locked: boolean): Promise<boolean>;
  admissions: {
    /** The admission a room session (its hash) belongs to, with when it was last active (now while its person is in the room). */
    bySession(meetingId: string, sessionHash: Buffer): Promise<(Admission & { lastActiveAt: Date }) | undefined>;
    of(meetingId: string, participantId: string): Promise<Admission | undefined>;
    /** Removes a participant with every admission of the same browser session and link; the participant ids removed (none: no such participant). */
    remove(meetingId: string, participantId: string): Promise<string[]>;
    /** Sets the role of a participant, or of every admission with an invited person's personal link. */
    setRole(meetingId: string, who: { email: string } | { participantId: string }, role: Admission["role"]): Promise<void>;
  };
  lobby: {
    /** Who is waiting (the longest waiting and the newest arrivals when more wait than a list holds), and how many in all. */
    waiting(meetingId: string): Promise<{ entries: LobbyEntryRecord[]; count: number }>;
    /** Denies everyone waiting; how many that was. */
    denyAll(meetingId: string): Promise<number>;
    /** Admits or denies a waiting entry; its status after (undefined: no such entry). A decision stands once made. */
    decide(meetingId: string, entryId: string, admit: boolean): Promise<LobbyStatus | undefined>;
  };
  chat: {
    /** Stores a message of an open meeting holding fewer than `cap` messages; undefined when it has closed or is full. */
    add(message: { meetingId: string; participantId: string; displayName: string; text: string }, cap: number): Promise<ChatMessageRecord | undefined>;
    /** The meeting's messages, oldest first (the last 500). */
    of(meetingId: string): Promise<ChatMessageRecord[]>;
  };
  /** The meeting's recording in progress, if any. */
  activeRecording(meetingId: string): Promise<StoredRecording | undefined>;
}
