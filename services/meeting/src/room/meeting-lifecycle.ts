import { type Logger } from "@svc/platform";
import { inTransaction, type Pool, type PoolClient } from "@svc/platform/db";
import { Code, ConnectError } from "@connectrpc/connect";
import { claimMeetingsDueToEnd, isClosed, lockMeeting, markEmpty, markClosed, markLive, updateMeetingDetails } from "../db/meetings.ts";
import type { MeetingDetails, MeetingEndCause, StoredMeeting } from "../meeting-store.ts";
import { insertOutboxEvent, type OutboxEvent } from "../db/outbox.ts";
import { deleteChatOf } from "../db/room-chat.ts";
import { closeAllVisits, closeVisit, countPresent, insertVisit, markWebhookApplied, personOf, visitsOf } from "../db/room-participants.ts";
import type { RoomVisit } from "../visit-store.ts";
import {
  meetingCancelledEvent,
  meetingEndedEvent,
  meetingStartedEvent,
  meetingUpdatedEvent,
  participantJoinedEvent,
  participantLeftEvent,
} from "../meeting-events.ts";
import { changedFields } from "../meeting-request.ts";
import { entryRefusal, type EntryRefusal } from "./room-entry.ts";

/** What the media server told us about one participant's connection. */
export interface ParticipantPresence {
  meetingId: string;
  sessionId: string;
  participantId: string;
  displayName: string;
  /** When the media server says the participant joined (the leave notification carries it too). */
  joinedAt: Date;
}

export interface PresenceOutcome {
  /**
   * Remove the participant from the room: the meeting has ended, or the connection is refused
   * (room-entry.ts: removed, its link no longer admits, locked, or it skipped the lobby).
   */
  evict: boolean;
  /** Why a connection was refused (no visit is recorded for it). */
  refused?: EntryRefusal;
}

export interface MeetingLifecycle {
  /** `webhookId` makes the call apply at most once (webhooks are at least once); reconciliation passes none. */
  participantJoined(presence: ParticipantPresence, webhookId?: string): Promise<PresenceOutcome>;
  participantLeft(presence: ParticipantPresence, leftAt: Date, webhookId?: string): Promise<void>;
  /** The room closed on the media server: whoever is still recorded as present has left. */
  roomClosed(meetingId: string, at: Date, webhookId?: string): Promise<void>;
  /** Ends a meeting (only within `orgId` when given); undefined when there is no such meeting. */
  end(orgId: string | null, meetingId: string, cause: MeetingEndCause): Promise<{ meeting: StoredMeeting; endedNow: boolean } | undefined>;
  /**
   * Changes a meeting's details with `details(current)` (which applies the rules and may throw);
   * FAILED_PRECONDITION for an ended or cancelled meeting. Emits meeting.updated when anything changed.
   */
  update(
    orgId: string,
    meetingId: string,
    details: (current: StoredMeeting) => MeetingDetails,
  ): Promise<{ meeting: StoredMeeting; changed: string[] } | undefined>;
  /** Cancels a meeting that has not ended; idempotent; FAILED_PRECONDITION for an ended one. */
  cancel(orgId: string, meetingId: string): Promise<{ meeting: StoredMeeting; cancelledNow: boolean } | undefined>;
  /**
   * Ends every meeting that is over: live ones empty for the grace period (or empty past their
   * planned end), scheduled ones past their planned end. Returns their ids.
   */
  endDueMeetings(): Promise<string[]>;
}

const closedRefusal = (meeting: StoredMeeting, action: string) =>
  new ConnectError(`Meeting has ${meeting.status === "ended" ? "ended" : "been cancelled"} and cannot be ${action}`, Code.FailedPrecondition);

/**
 * The rules of a meeting's life (docs/decisions/0007-meeting-status-follows-the-room.md): the first person to enter makes it live
 * (`meeting.started`); every entry and exit is an event; when the room empties, a grace period
 * starts, cancelled by anyone entering; when it runs out, or when the API ends the meeting, it
 * ends exactly once (`meeting.ended`, with every visit). Each change takes the meeting's row
 * lock and writes its events to the outbox in the same transaction, so concurrent notifications
 * apply one at a time and no event is lost or doubled.
 */
export function createMeetingLifecycle(deps: { pool: Pool; graceSeconds: number; outboxWritten: () => void; logger: Logger }): MeetingLifecycle {
  const { pool, graceSeconds, logger } = deps;

  /** Runs `change` in a transaction, once per webhook id, and publishes the events it returns. */
  async function apply<T>(
    webhookId: string | undefined,
    fallback: T,
    change: (client: PoolClient, emit: (event: OutboxEvent) => void) => Promise<T>,
  ): Promise<T> {
    const events: OutboxEvent[] = [];
    const result = await inTransaction(pool, async (client) => {
      if (webhookId !== undefined && !(await markWebhookApplied(client, webhookId))) return fallback;
      const value = await change(client, (event) => events.push(event));
      for (const event of events) await insertOutboxEvent(client, event);
      return value;
    });
    if (events.length > 0) deps.outboxWritten();
    return result;
  }

  /** Starts the grace period if nobody is left in a live meeting's room. */
  async function markEmptyIfNobodyLeft(client: PoolClient, meeting: StoredMeeting, at: Date) {
    if (meeting.status === "live" && (await countPresent(client, meeting.id)) === 0) await markEmpty(client, meeting.id, at);
  }

  /** Someone is in the room: the meeting is live (started now if it was scheduled). */
  async function enter(client: PoolClient, meeting: StoredMeeting, visit: RoomVisit, emit: (event: OutboxEvent) => void) {
    if (meeting.status === "scheduled") emit(meetingStartedEvent({ ...meeting, status: "live" }, visit.joinedAt));
    emit(participantJoinedEvent(meeting, { ...visit, ...(await personOf(client, visit.participantId)) }));
    return markLive(client, meeting.id);
  }

  /**
   * Ends a scheduled or live meeting and emits what that means; undefined for any other. Its
   * UPDATE takes the row's lock, as every change of a meeting's state does, so ending a meeting is
   * one statement when nobody entered it, and no lock is taken by a read before.
   */
  async function endMeeting(client: PoolClient, meetingId: string, orgId: string | undefined, cause: MeetingEndCause, emit: (event: OutboxEvent) => void) {
    const ended = await markClosed(client, meetingId, "ended", orgId);
    if (!ended) return undefined;
    // Whoever entered the room opened it (enter makes the meeting live, which records that in
    // the transaction that records the visit; a join grant opens it before), so a meeting whose
    // room was never opened has no visit to close or list, and no chat (three round trips saved).
    let visits: RoomVisit[] = [];
    if (ended.roomOpenedAt) {
      for (const visit of await closeAllVisits(client, meetingId, new Date())) emit(participantLeftEvent(ended, visit));
      visits = await visitsOf(client, meetingId);
      // Nothing of the chat is kept after the meeting (docs/meeting-room.md).
      await deleteChatOf(client, meetingId);
    }
    emit(meetingEndedEvent(ended, visits, cause));
    return ended;
  }

  return {
    participantJoined: (presence, webhookId) =>
      apply(webhookId, { evict: false }, async (client, emit) => {
        const meeting = await lockMeeting(client, presence.meetingId);
        if (!meeting) return { evict: false };
        const ended = isClosed(meeting.status);
        // A connection the room's rules refuse is not a visit: it is removed at once, whatever token it came with.
        const refused = ended ? undefined : await entryRefusal(client, meeting, presence.participantId);
        if (refused) return { evict: true, refused };
        // Someone who got in after the end (with a grant issued before it) is recorded as a visit
        // that ended at once, and removed from the room by the caller.
        const visit = await insertVisit(client, { ...presence, leftAt: ended ? presence.joinedAt : null });
        if (!visit || ended) return { evict: ended };
        await enter(client, meeting, visit, emit);
        return { evict: false };
      }),

    participantLeft: (presence, leftAt, webhookId) =>
      apply(webhookId, undefined, async (client, emit) => {
        const meeting = await lockMeeting(client, presence.meetingId);
        if (!meeting || isClosed(meeting.status)) return;
        const closed = await closeVisit(client, presence.meetingId, presence.sessionId, leftAt);
        if (closed) {
          emit(participantLeftEvent(meeting, { ...closed, ...(await personOf(client, closed.participantId)) }));
        } else {
          // The leave arrived before (or instead of) the join: the person was there all the same,
          // unless the connection was one the room refuses (it was removed at once, not a visit).
          if (await entryRefusal(client, meeting, presence.participantId)) return;
          const visit = await insertVisit(client, { ...presence, leftAt });
          if (!visit) return; // already recorded as left
          await enter(client, meeting, visit, emit);
          emit(participantLeftEvent(meeting, visit));
        }
        await markEmptyIfNobodyLeft(client, (await lockMeeting(client, meeting.id))!, leftAt);
      }),

    roomClosed: (meetingId, at, webhookId) =>
      apply(webhookId, undefined, async (client, emit) => {
        const meeting = await lockMeeting(client, meetingId);
        if (!meeting || isClosed(meeting.status)) return;
        for (const visit of await closeAllVisits(client, meetingId, at)) emit(participantLeftEvent(meeting, visit));
        await markEmptyIfNobodyLeft(client, meeting, at);
      }),

    end: (orgId, meetingId, cause) =>
      apply(undefined, undefined, async (client, emit) => {
        const ended = await endMeeting(client, meetingId, orgId ?? undefined, cause, emit);
        if (ended) return { meeting: ended, endedNow: true };
        // Not scheduled nor live (or not there): read it, under its lock, to answer why.
        const meeting = await lockMeeting(client, meetingId, orgId ?? undefined);
        if (meeting?.status === "cancelled") throw closedRefusal(meeting, "ended");
        return meeting ? { meeting, endedNow: false } : undefined;
      }),

    update: (orgId, meetingId, details) =>
      apply(undefined, undefined, async (client, emit) => {
        const before = await lockMeeting(client, meetingId, orgId);
        if (!before) return undefined;
        if (isClosed(before.status)) throw closedRefusal(before, "changed");
        const after = details(before);
        const changed = changedFields(before, after);
        if (changed.length === 0) return { meeting: before, changed };
        await updateMeetingDetails(client, meetingId, after);
        const meeting = (await lockMeeting(client, meetingId))!;
        emit(meetingUpdatedEvent(before, meeting, changed));
        return { meeting, changed };
      }),

    cancel: (orgId, meetingId) =>
      apply(undefined, undefined, async (client, emit) => {
        // As for an end: the UPDATE takes the row's lock, and the meeting is read only to answer
        // why it did not apply; a room never opened has had no visitor.
        const cancelled = await markClosed(client, meetingId, "cancelled", orgId);
        if (!cancelled) {
          const meeting = await lockMeeting(client, meetingId, orgId);
          if (!meeting) return undefined;
          if (meeting.status === "cancelled") return { meeting, cancelledNow: false };
          throw closedRefusal(meeting, "cancelled");
        }
        if (cancelled.roomOpenedAt) {
          for (const visit of await closeAllVisits(client, meetingId, new Date())) emit(participantLeftEvent(cancelled, visit));
          await deleteChatOf(client, meetingId);
        }
        emit(meetingCancelledEvent(cancelled));
        return { meeting: cancelled, cancelledNow: true };
      }),

    async endDueMeetings() {
      const ended = await apply(undefined, [] as string[], async (client, emit) => {
        const endedIds: string[] = [];
        for (const { id, status } of await claimMeetingsDueToEnd(client, graceSeconds, 50)) {
          if (await endMeeting(client, id, undefined, status === "live" ? "empty" : "end_passed", emit)) endedIds.push(id);
        }
        return endedIds;
      });
      if (ended.length > 0) logger.info({ meetingIds: ended }, "ended meetings that are over (empty, or past their planned end)");
      return ended;
    },
  };
}
