import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { meetingLimits } from "@svc/platform/contract";
import { describe, expect, it } from "vitest";
import { callerTable, createAuthenticator, createLogger, type Caller } from "@svc/platform";
import { MeetingPageService, MeetingService, MeetingStatus } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { MeetingDetails, NewMeeting, StoredMeeting, MeetingStore } from "../meeting-store.ts";
import type { RoomVisit, VisitStore } from "../visit-store.ts";
import type { MeetingLifecycle } from "../room/meeting-lifecycle.ts";
import { meetingPageService } from "./meeting-page-service.ts";
import { meetingService } from "./meeting-service.ts";
import { DEFAULT_SETTINGS } from "../meeting-request.ts";

// The handler rules of MeetingService over an in-memory transport and in-memory stores: value
// rules, scopes, organization isolation and paging. The Postgres store and the lifecycle's own
// rules (locks, events, closed meetings) are covered by the integration tests under test/meeting/.

const PUBLIC_URL = "https://meet.example.com";

/** Meetings in an array, newest last; `seq` is the position plus one, as Postgres' sequence would number them. */
function inMemoryMeetingStore(): MeetingStore & { all: StoredMeeting[] } {
  const all: StoredMeeting[] = [];
  const replays = new Map<string, { fingerprint: string; stored: Uint8Array }>();
  const seqOf = (meeting: StoredMeeting) => String(all.indexOf(meeting) + 1);
  const store = (meeting: NewMeeting): StoredMeeting => {
    const stored = { ...meeting, status: "scheduled" as const, createdAt: new Date(), endedAt: null, cancelledAt: null, roomOpenedAt: null, roomLocked: false };
    all.push(stored);
    return stored;
  };
  return {
    all,
    async create(meeting, idempotent) {
      const { request, codec, answer } = idempotent;
      if (!request) return { value: answer(store(meeting)), replayed: false };
      const previous = replays.get(`${request.orgId}/${request.key}`);
      if (previous?.fingerprint === request.fingerprint) return { value: codec.decode(previous.stored), replayed: true };
      const value = answer(store(meeting));
      replays.set(`${request.orgId}/${request.key}`, { fingerprint: request.fingerprint, stored: codec.encode(value) });
      return { value, replayed: false };
    },
    getOfOrg: async (orgId, id) => all.find((meeting) => meeting.id === id && meeting.orgId === orgId),
    get: async (id) => all.find((meeting) => meeting.id === id),
    async list(orgId, { limit, afterSeq, filter }) {
      const matching = all
        .filter((meeting) => meeting.orgId === orgId && (afterSeq === null || Number(seqOf(meeting)) < Number(afterSeq)))
        .filter((meeting) => filter.status === null || meeting.status === filter.status)
        .filter(
          (meeting) =>
            filter.search === null ||
            [meeting.title, ...meeting.hosts, ...meeting.attendees].some((text) => text.toLowerCase().includes(filter.search!.toLowerCase())),
        )
        .reverse();
      const page = matching.slice(0, limit);
      return { meetings: page, nextAfterSeq: matching.length > limit ? seqOf(page.at(-1)!) : null };
    },
    activitiesOf: async (meetings) => new Map(meetings.map((meeting) => [meeting.id, { joinedCount: 0, recordingCount: 0 }])),
    settingsDefaultsOf: async () => DEFAULT_SETTINGS,
  };
}

/** Ends, cancels and updates the stored meetings directly; only what the handler relies on. */
function inMemoryLifecycle(store: { all: StoredMeeting[] }): Pick<MeetingLifecycle, "end" | "cancel" | "update"> {
  const find = (orgId: string | null, id: string) => store.all.find((meeting) => meeting.id === id && (orgId === null || meeting.orgId === orgId));
  return {
    async end(orgId, id) {
      const meeting = find(orgId, id);
      if (!meeting) return undefined;
      const endedNow = meeting.status !== "ended";
      if (endedNow) Object.assign(meeting, { status: "ended", endedAt: new Date() });
      return { meeting, endedNow };
    },
    async cancel(orgId, id) {
      const meeting = find(orgId, id);
      if (!meeting) return undefined;
      const cancelledNow = meeting.status !== "cancelled";
      if (cancelledNow) Object.assign(meeting, { status: "cancelled", cancelledAt: new Date() });
      return { meeting, cancelledNow };
    },
    async update(orgId, id, details: (current: StoredMeeting) => MeetingDetails) {
      const meeting = find(orgId, id);
      if (!meeting) return undefined;
      Object.assign(meeting, details(meeting));
      return { meeting, changed: [] };
    },
  };
}

const callers: Record<string, Caller> = {
  "key-a": { userId: "user-a", orgId: "org-a", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "key-b": { userId: "user-b", orgId: "org-b", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "oauth-read": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["meeting.read"], clientId: "client-1" },
  "oauth-create": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["meeting.create"], clientId: "client-1" },
};
const resolveCaller = callerTable(callers);

/** A dependency these tests never reach: any use fails the test. */
const notUsed = new Proxy(
  {},
  {
    get() {
      throw new Error("not used by these tests");
    },
  },
);

/** VisitStore in memory: the visits given, paged as the Postgres store pages them (joinedAt, sessionId). */
function inMemoryVisitStore(visits: RoomVisit[]): VisitStore {
  const ordered = (meetingId: string) =>
    visits
      .filter((visit) => visit.meetingId === meetingId)
      .sort((a, b) => a.joinedAt.getTime() - b.joinedAt.getTime() || a.sessionId.localeCompare(b.sessionId));
  return {
    page: async (meetingId, { limit, after }) => {
      const rest = ordered(meetingId).filter(
        (visit) => !after || visit.joinedAt > after.joinedAt || (visit.joinedAt.getTime() === after.joinedAt.getTime() && visit.sessionId > after.sessionId),
      );
      return { visits: rest.slice(0, limit), more: rest.length > limit };
    },
    of: async (meetingId) => ordered(meetingId),
    usage: notUsed as never,
  };
}

function setUp(visits: RoomVisit[] = []) {
  const store = inMemoryMeetingStore();
  const closedRooms: string[] = [];
  const transport = createRouterTransport((router) => {
    router.service(
      MeetingService,
      meetingService({
        authenticate: createAuthenticator(resolveCaller),
        meetings: store,
        lifecycle: inMemoryLifecycle(store) as MeetingLifecycle,
        publicUrl: PUBLIC_URL,
        logger: createLogger("meeting-service-test", "silent"),
        roomClosed: (meetingId) => closedRooms.push(meetingId),
        // Links and attendance need Postgres: tested in test/meeting-room.
        links: notUsed as never,
        visits: inMemoryVisitStore(visits),
        rightsChanged: notUsed as never,
      }),
    );
    router.service(
      MeetingPageService,
      meetingPageService({ meetings: store, grants: notUsed as never, links: notUsed as never, isRecording: async () => false, isRemoved: async () => false }),
    );
  });
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  return { store, closedRooms, as, meetings: createClient(MeetingService, transport), pages: createClient(MeetingPageService, transport) };
}

async function refusal(call: Promise<unknown>): Promise<ConnectError> {
  const error = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

describe("CreateMeeting", () => {
  it("stores a valid meeting in the caller's organization, trimmed, with its join URL and creator", async () => {
    const { meetings, as, store } = setUp();
    const { meeting } = await meetings.createMeeting(
      { title: "  Planning  ", start: "2030-01-02T10:00:00+01:00", durationMinutes: 30, attendees: ["a@example.com", "A@example.com"] },
      as("oauth-create"),
    );
    expect(meeting).toMatchObject({ orgId: "org-a", title: "Planning", status: MeetingStatus.SCHEDULED, attendees: ["a@example.com"] });
    expect(meeting!.joinUrl).toBe(`${PUBLIC_URL}/meeting/${meeting!.id}`);
    expect(meeting!.createdByUserId).toBe("user-a");
    expect(meeting!.createdByClientId).toBe("client-1");
    expect(store.all[0]!.end?.toISOString()).toBe("2030-01-02T09:30:00.000Z");
  });

  it("names every broken value rule in one INVALID_ARGUMENT and stores nothing", async () => {
    const { meetings, as, store } = setUp();
    const error = await refusal(meetings.createMeeting({ title: " ", start: "tomorrow", attendees: ["not-an-address"] }, as("key-a")));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toContain("title is required");
    expect(error.rawMessage).toContain("start ");
    expect(error.rawMessage).toContain("not-an-address");
    expect(store.all).toHaveLength(0);
  });

  it("an OAuth token without meeting.create is refused before any rule is checked", async () => {
    const { meetings, as, store } = setUp();
    const error = await refusal(meetings.createMeeting({ title: "", attendees: [] }, as("oauth-read")));
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe("Insufficient scope: meeting.create");
    expect(store.all).toHaveLength(0);
  });

  it("a call without a credential is UNAUTHENTICATED", async () => {
    const { meetings } = setUp();
    expect((await refusal(meetings.createMeeting({ title: "x", attendees: [] }))).code).toBe(Code.Unauthenticated);
  });

  it("a repeated Idempotency-Key answers the first meeting and says it is a replay", async () => {
    const { meetings, as, store } = setUp();
    const headers = { ...as("key-a").headers, "idempotency-key": '"abc"' };
    const first = await meetings.createMeeting({ title: "Once", attendees: [] }, { headers });
    let replayed: string | null = null;
    const second = await meetings.createMeeting({ title: "Once", attendees: [] }, { headers, onHeader: (h) => (replayed = h.get("idempotent-replayed")) });
    expect(second.meeting!.id).toBe(first.meeting!.id);
    expect(replayed).toBe("true");
    expect(store.all).toHaveLength(1);
  });
});

describe("organization isolation", () => {
  it("another organization's meeting is not found, not listed, and cannot be ended, updated or cancelled", async () => {
    const { meetings, as, closedRooms } = setUp();
    const { meeting } = await meetings.createMeeting({ title: "Ours", attendees: [] }, as("key-a"));
    const id = meeting!.id;
    expect((await refusal(meetings.getMeeting({ id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(meetings.endMeeting({ id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(meetings.cancelMeeting({ id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(meetings.updateMeeting({ id, title: "Theirs", updateMask: { paths: ["title"] }, attendees: [] }, as("key-b")))).code).toBe(
      Code.NotFound,
    );
    expect((await meetings.listMeetings({}, as("key-b"))).meetings).toEqual([]);
    expect((await meetings.getMeeting({ id }, as("key-a"))).meeting!.title).toBe("Ours");
    expect(closedRooms).toEqual([]);
  });

  it("an id that cannot be a meeting id is NOT_FOUND", async () => {
    const { meetings, as } = setUp();
    expect((await refusal(meetings.getMeeting({ id: "../../etc" }, as("key-a")))).code).toBe(Code.NotFound);
  });
});

describe("meeting lifecycle through the API", () => {
  /** A meeting whose media room a join grant has opened. */
  async function meetingWithOpenRoom(setup: ReturnType<typeof setUp>) {
    const { meeting } = await setup.meetings.createMeeting({ title: "Call", attendees: [] }, setup.as("key-a"));
    setup.store.all.find((stored) => stored.id === meeting!.id)!.roomOpenedAt = new Date();
    return meeting!.id;
  }

  it("ending closes the media room once, however often it is ended", async () => {
    const setup = setUp();
    const id = await meetingWithOpenRoom(setup);
    expect((await setup.meetings.endMeeting({ id }, setup.as("key-a"))).endedNow).toBe(true);
    expect((await setup.meetings.endMeeting({ id }, setup.as("key-a"))).endedNow).toBe(false);
    expect(setup.closedRooms).toEqual([id]);
  });

  it("cancelling closes the media room once", async () => {
    const setup = setUp();
    const id = await meetingWithOpenRoom(setup);
    await setup.meetings.cancelMeeting({ id }, setup.as("key-a"));
    await setup.meetings.cancelMeeting({ id }, setup.as("key-a"));
    expect(setup.closedRooms).toEqual([id]);
  });

  it("a meeting whose room was never opened has no room to close when it ends or is cancelled", async () => {
    const { meetings, as, closedRooms } = setUp();
    const { meeting: ended } = await meetings.createMeeting({ title: "Nobody came", attendees: [] }, as("key-a"));
    const { meeting: cancelled } = await meetings.createMeeting({ title: "Called off", attendees: [] }, as("key-a"));
    expect((await meetings.endMeeting({ id: ended!.id }, as("key-a"))).endedNow).toBe(true);
    expect((await meetings.cancelMeeting({ id: cancelled!.id }, as("key-a"))).cancelledNow).toBe(true);
    expect(closedRooms).toEqual([]);
  });

  it("an update applies the creation rules to the merged meeting, and moving the start keeps its length", async () => {
    const { meetings, as } = setUp();
    const { meeting } = await meetings.createMeeting({ title: "Call", start: "2030-01-02T10:00:00Z", durationMinutes: 45, attendees: [] }, as("key-a"));
    const id = meeting!.id;
    expect((await refusal(meetings.updateMeeting({ id, title: "", updateMask: { paths: ["title"] }, attendees: [] }, as("key-a")))).code).toBe(
      Code.InvalidArgument,
    );
    expect((await refusal(meetings.updateMeeting({ id, title: "x", attendees: [] }, as("key-a")))).rawMessage).toContain("nothing to update");
    const moved = await meetings.updateMeeting({ id, title: "", start: "2030-01-03T10:00:00Z", updateMask: { paths: ["start"] }, attendees: [] }, as("key-a"));
    expect(moved.meeting!.title).toBe("Call");
    expect(moved.meeting!.end).toEqual({ ...moved.meeting!.start, seconds: moved.meeting!.start!.seconds + 45n * 60n });
  });
});

describe("ListMeetings", () => {
  it("pages newest first with an opaque token", async () => {
    const { meetings, as } = setUp();
    for (const title of ["one", "two", "three"]) await meetings.createMeeting({ title, attendees: [] }, as("key-a"));
    const first = await meetings.listMeetings({ pageSize: 2 }, as("key-a"));
    expect(first.meetings.map((m) => m.title)).toEqual(["three", "two"]);
    const second = await meetings.listMeetings({ pageSize: 2, pageToken: first.nextPageToken }, as("key-a"));
    expect(second.meetings.map((m) => m.title)).toEqual(["one"]);
    expect(second.nextPageToken).toBe("");
  });

  it("searches trimmed text without NUL, up to the contract's length, and answers each meeting's activity in order", async () => {
    const { meetings, as } = setUp();
    for (const title of ["Weekly review", "Design sync"]) await meetings.createMeeting({ title, attendees: [] }, as("key-a"));
    const found = await meetings.listMeetings({ search: "  week\u0000ly " }, as("key-a"));
    expect(found.meetings.map((m) => m.title)).toEqual(["Weekly review"]);
    expect(found.activities).toEqual([expect.objectContaining({ meetingId: found.meetings[0]!.id, joinedCount: 0, recordingCount: 0 })]);
    expect((await meetings.listMeetings({ search: " \u0000 " }, as("key-a"))).meetings).toHaveLength(2);
    expect((await meetings.listMeetings({ search: "x".repeat(meetingLimits.searchMaxLength) }, as("key-a"))).meetings).toEqual([]);
    const refused = await refusal(meetings.listMeetings({ search: "x".repeat(meetingLimits.searchMaxLength + 1) }, as("key-a")));
    expect(refused.rawMessage).toContain(`search must be at most ${meetingLimits.searchMaxLength} characters`);
  });

  it("refuses a negative page size, a page token it did not issue and a status that is none", async () => {
    const { meetings, as } = setUp();
    expect((await refusal(meetings.listMeetings({ pageSize: -1 }, as("key-a")))).code).toBe(Code.InvalidArgument);
    expect((await refusal(meetings.listMeetings({ pageToken: "bm9wZQ" }, as("key-a")))).rawMessage).toBe("page_token is invalid");
    expect((await refusal(meetings.listMeetings({ status: 99 as MeetingStatus }, as("key-a")))).rawMessage).toContain("status is not a meeting status");
  });
});

describe("MeetingPageService.GetJoinInfo", () => {
  it("tells the join page what a participant needs by id alone, without the attendee list", async () => {
    const { meetings, pages, as } = setUp();
    const { meeting } = await meetings.createMeeting({ title: "Open", attendees: ["a@example.com", "b@example.com"] }, as("key-a"));
    const info = await pages.getJoinInfo({ id: meeting!.id });
    expect(info).toMatchObject({ id: meeting!.id, title: "Open", attendeeCount: 2, status: MeetingStatus.SCHEDULED });
    expect((await refusal(pages.getJoinInfo({ id: "nope" }))).code).toBe(Code.NotFound);
  });
});

describe("ListParticipants (through the VisitStore)", () => {
  it("pages a meeting's visits oldest first, with who each was, and only in the caller's organization", async () => {
    const visitsOf = (meetingId: string): RoomVisit[] =>
      ["s1", "s2", "s3"].map((sessionId, index) => ({
        meetingId,
        sessionId,
        participantId: `p-${sessionId}`,
        displayName: `Person ${index + 1}`,
        joinedAt: new Date(Date.UTC(2030, 0, 2, 10, index)),
        leftAt: index === 2 ? null : new Date(Date.UTC(2030, 0, 2, 11)),
        role: index === 0 ? "host" : "guest",
        email: index === 0 ? "host@example.com" : null,
      }));
    const visits: RoomVisit[] = [];
    const { meetings, as } = setUp(visits);
    const { meeting } = await meetings.createMeeting({ title: "Standup" }, as("key-a"));
    visits.push(...visitsOf(meeting!.id));

    const first = await meetings.listParticipants({ meetingId: meeting!.id, pageSize: 2 }, as("oauth-read"));
    expect(first.participants.map((participant) => [participant.name, participant.email])).toEqual([
      ["Person 1", "host@example.com"],
      ["Person 2", ""],
    ]);
    const second = await meetings.listParticipants({ meetingId: meeting!.id, pageSize: 2, pageToken: first.nextPageToken }, as("oauth-read"));
    expect(second.participants.map((participant) => participant.name)).toEqual(["Person 3"]);
    expect(second.nextPageToken).toBe("");
    expect((await refusal(meetings.listParticipants({ meetingId: meeting!.id }, as("key-b")))).code).toBe(Code.NotFound);
  });
});
