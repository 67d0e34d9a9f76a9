export interface UsageDay {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  meetings: number;
  participantMinutes: number;
}

export interface Usage {
  days: UsageDay[];
  recordingMinutes: number;
  storageBytes: number;
  recordingsStored: number;
}

/** One stay of one participant in a meeting room (a rejoin is a new visit). */
export interface RoomVisit {
  meetingId: string;
  /** The media server's id of this connection. */
  sessionId: string;
  /** The identity the join grant gave. */
  participantId: string;
  displayName: string;
  joinedAt: Date;
  leftAt: Date | null;
  /** Who the participant was, from their join grant (absent for grants from before roles existed). */
  role?: "host" | "attendee" | "guest";
  email?: string | null;
}

/**
 * Who was in a meeting's room, and an organization's use, for the API handlers (participants,
 * attendance, usage). The records are the store's: a handler imports them from here, never from
 * `db/`. Postgres: db/pg-visit-store.ts.
 */
export interface VisitStore {
  /** One page of a meeting's visits with who it was, oldest first; `after` is the last (joinedAt, sessionId) seen. */
  page(meetingId: string, page: { limit: number; after: { joinedAt: Date; sessionId: string } | null }): Promise<{ visits: RoomVisit[]; more: boolean }>;
  /** Every visit of a meeting with who it was, oldest first. */
  of(meetingId: string): Promise<RoomVisit[]>;
  /** An organization's use over the last `days` UTC days, today included. */
  usage(orgId: string, days: number): Promise<Usage>;
}
