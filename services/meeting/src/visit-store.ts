import type { RoomVisit } from "./db/room-participants.ts";
import type { Usage, UsageDay } from "./db/usage.ts";

export type { RoomVisit, Usage, UsageDay };

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
