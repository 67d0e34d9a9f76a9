import type { components } from "@svc/client";
import { RoomServiceClient, TokenVerifier } from "livekit-server-sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { expectDocumentedShape, fetchOpenApiDocument } from "../support/openapi-document.ts";
import { mediaParticipant, mediaWebhookBody, sendMediaWebhook, signMediaWebhook } from "../support/media-webhooks.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { succeeded, useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// The meeting lifecycle driven by presence, through the real services: join grants over REST, the
// media server's signed webhooks (sent here exactly as LiveKit sends them, so every ordering and
// every forgery can be tried), the outbox, Kafka and webhook delivery to a receiver that verifies
// with `standardwebhooks`. The browser tests in room-call.test.ts do the same with real people.
const GRACE_SECONDS = 1.5;
// A real media server: a join opens the meeting's room there, with its cap, before it answers.
// The people here are announced by webhooks alone, so the reconciler (which would remove them,
// as the media server does not know them) stays out of the way: room-reconciliation.test.ts tests it.
const fixture = useStack({
  media: true,
  env: {
    MEETING_EMPTY_GRACE_SECONDS: String(GRACE_SECONDS),
    MEETING_MAX_PARTICIPANTS: "3",
    WEBHOOK_POLL_INTERVAL_MS: "200",
    ROOM_RECONCILE_INTERVAL_MS: "3600000",
  },
});
const receiver = useWebhookReceiver();
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/events", {
    events: ["meeting.started", "meeting.ended", "participant.joined", "participant.left"],
  });
});

const client = () => fixture.client(tenant.apiKey);

async function createMeeting(title = "Room test"): Promise<string> {
  const { data, response } = await client().POST("/meeting", { body: { title } });
  expect(response.status).toBe(200);
  return data!.id;
}

const endMeeting = (id: string) => client().POST("/meeting/{id}/end", { params: { path: { id } } });

/** Deliveries run concurrently, so receivers get events in any order (each carries its time): compare as sets. */
const typesOf = (meetingId: string) =>
  eventsOf(meetingId)
    .map((event) => event.type)
    .sort();

const statusOf = async (id: string) => (await succeeded(client().GET("/meeting/{id}", { params: { path: { id } } }))).status;
/** Joining needs no credential: the join URL is the capability. A name of another type is sent as it is (the cast only quiets the compiler). */
const join = (id: string, displayName: unknown) =>
  fixture.client().POST("/meeting/{id}/join", { params: { path: { id } }, body: { displayName: displayName as string } });
const eventsOf = (meetingId: string, type?: string) =>
  receiver
    .on("/events")
    .filter((request) => request.payload && request.payload.data.meetingId === meetingId && (!type || request.payload.type === type))
    .map((request) => request.payload!);

describe("join grants: POST /api/v1/meeting/:id/join", () => {
  it("gives anyone with the link a short-lived LiveKit token for the meeting's room, with a new identity and the name", async () => {
    const id = await createMeeting("Grant");
    const { data, response } = await join(id, "  Ada Lovelace ");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const grant = data as components["schemas"]["JoinGrant"];
    expect(grant.serverUrl).toBe(fixture.stack.env.LIVEKIT_PUBLIC_URL);
    expect(grant.meeting).toEqual({ id, title: "Grant", status: "scheduled" });
    const claims = await new TokenVerifier(fixture.stack.env.LIVEKIT_API_KEY!, fixture.stack.env.LIVEKIT_API_SECRET!).verify(grant.token);
    expect(claims.sub).toBe(grant.participantId);
    expect(claims.name).toBe("Ada Lovelace");
    expect(claims.video).toMatchObject({ roomJoin: true, room: id, canPublish: true, canSubscribe: true });
    expect(claims.exp! - claims.nbf!).toBe(300);
    expect(Math.abs(Date.parse(grant.expiresAt) - claims.exp! * 1_000)).toBeLessThan(2_000);
    const second = (await join(id, "Ada Lovelace")).data as components["schemas"]["JoinGrant"];
    expect(second.participantId).not.toBe(grant.participantId);
  });

  it("refuses bad names, unknown meetings and ended meetings with clear messages, without a token", async () => {
    const id = await createMeeting();
    const cases: [string, unknown, number, string][] = [
      [id, "", 400, "displayName is required"],
      [id, "x".repeat(65), 400, "displayName must be at most 64 characters"],
      [id, "two\nlines", 400, "displayName must not contain control characters or line breaks"],
      [id, 42, 400, "displayName must be a string"],
      ["AAAAAAAAAAAAAAAAAAAAAA", "Ada", 404, "Meeting not found"],
      ["not-an-id", "Ada", 404, "Meeting not found"],
    ];
    for (const [meetingId, name, status, message] of cases) {
      const { error, response } = await join(meetingId, name);
      expect(response.status, `${meetingId} ${String(name)}`).toBe(status);
      expect(error?.error).toBe(message);
    }
    expect((await endMeeting(id)).response.status).toBe(200);
    const ended = await join(id, "Ada");
    expect(ended.response.status).toBe(410);
    expect(ended.error).toMatchObject({ error: "This meeting has ended" });
  });

  it("refuses a join once the meeting room is full (409)", async () => {
    const id = await createMeeting("Full");
    for (const name of ["A", "B", "C"]) {
      expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: mediaParticipant(name) })).toBe(200);
    }
    const { error, response } = await join(id, "D");
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ error: "This meeting is full (3 participants)" });
  });
});

describe("presence and lifecycle from the media server's webhooks", () => {
  it("first join → live and meeting.started; joins and leaves → participant events; empty past the grace period → exactly one meeting.ended", async () => {
    const id = await createMeeting("Lifecycle");
    const alice = mediaParticipant("Alice");
    const bob = mediaParticipant("Bob <script>");
    expect(await statusOf(id)).toBe("scheduled");
    expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: alice })).toBe(200);
    expect(await statusOf(id)).toBe("live");
    expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: bob })).toBe(200);
    expect(await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: id, participant: bob })).toBe(200);
    expect(await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: id, participant: alice })).toBe(200);
    expect(await statusOf(id)).toBe("live"); // within the grace period

    await waitFor(() => eventsOf(id, "meeting.ended").length === 1, 15_000, "meeting.ended after the grace period");
    expect(await statusOf(id)).toBe("ended");
    await holdStill(GRACE_SECONDS * 1_000 + 500, "a negative (no second meeting.ended): another grace period in which one would be sent");
    expect(eventsOf(id, "meeting.ended")).toHaveLength(1);
    await waitFor(() => typesOf(id).length >= 6, 10_000, "all six events delivered");
    expect(typesOf(id)).toEqual(["meeting.ended", "meeting.started", "participant.joined", "participant.joined", "participant.left", "participant.left"]);
    const joined = eventsOf(id, "participant.joined").find((event) => (event.data.participant as { participantId: string }).participantId === bob.identity)!;
    expect(joined.data).toEqual({
      meetingId: id,
      orgId: tenant.orgId,
      // Entered without a personal link: a guest, with no address.
      participant: { participantId: bob.identity, displayName: "Bob <script>", email: null, role: "guest", joinedAt: expect.any(String), leftAt: null },
    });
    const ended = eventsOf(id, "meeting.ended")[0]!;
    expect(ended.data.reason).toBe("empty");
    expect((ended.data.participants as { displayName: string; leftAt: string }[]).map((visit) => visit.displayName).sort()).toEqual(["Alice", "Bob <script>"]);
    expect((ended.data.participants as { leftAt: string | null }[]).every((visit) => visit.leftAt !== null)).toBe(true);
  });

  it("a rejoin within the grace period keeps the meeting live: no meeting.ended", async () => {
    const id = await createMeeting("Rejoin");
    const first = mediaParticipant("Carol");
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: first });
    await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: id, participant: first });
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: mediaParticipant("Carol") });
    await holdStill(GRACE_SECONDS * 1_000 * 2 + 1_000, "a negative (the meeting does not end): twice the grace period in which it would");
    expect(await statusOf(id)).toBe("live");
    await waitFor(() => eventsOf(id, "participant.joined").length === 2, 10_000, "both joins delivered");
    expect(eventsOf(id, "meeting.ended")).toHaveLength(0);
    expect(eventsOf(id, "meeting.started")).toHaveLength(1);
  });

  it("applies each webhook once: a redelivered or replayed notification changes nothing", async () => {
    const id = await createMeeting("Replay");
    const dave = mediaParticipant("Dave");
    const body = mediaWebhookBody({ event: "participant_joined", meetingId: id, participant: dave, id: "EV_replayed_once" + id.slice(0, 6) });
    for (let index = 0; index < 3; index++) expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id }, body)).toBe(200);
    await waitFor(() => eventsOf(id, "participant.joined").length >= 1, 10_000);
    await holdStill(1_000, "a negative (the replays change nothing): time for a duplicate event to be delivered");
    expect(eventsOf(id, "participant.joined")).toHaveLength(1);
    const visits = await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.room_participants WHERE meeting_id = $1", [id]);
    expect(visits.rows[0]!.n).toBe(1);
  });

  it("refuses forged, tampered and unsigned webhooks with 401 and changes nothing", async () => {
    const id = await createMeeting("Forged");
    const body = mediaWebhookBody({ event: "participant_joined", meetingId: id, participant: mediaParticipant("Mallory") });
    const post = (authorization: string | undefined, payload = body) =>
      fetch(fixture.stack.mediaWebhookUrl, {
        method: "POST",
        headers: { "content-type": "application/webhook+json", ...(authorization ? { authorization } : {}) },
        body: payload,
      });
    const wrongSecret = await signMediaWebhook(body, fixture.stack.env.LIVEKIT_API_KEY!, "an-attacker-s-secret-of-thirty-two-chars!");
    const wrongKey = await signMediaWebhook(body, "another-key", fixture.stack.env.LIVEKIT_API_SECRET!);
    const rightSignature = await signMediaWebhook(body, fixture.stack.env.LIVEKIT_API_KEY!, fixture.stack.env.LIVEKIT_API_SECRET!);
    const tampered = body.replace("Mallory", "Mallorx");
    for (const [authorization, payload] of [
      [undefined, body],
      [wrongSecret, body],
      [wrongKey, body],
      [rightSignature, tampered],
      ["garbage", body],
    ] as const) {
      expect((await post(authorization, payload)).status).toBe(401);
    }
    expect(await statusOf(id)).toBe("scheduled");
    expect((await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.room_participants WHERE meeting_id = $1", [id])).rows[0]!.n).toBe(0);
    expect(fixture.stack.logs("meeting")).not.toContain(fixture.stack.env.LIVEKIT_API_SECRET!);
  });

  it("a leave that arrives before its join still counts the visit, and the late join changes nothing", async () => {
    const id = await createMeeting("Out of order");
    const erin = mediaParticipant("Erin", Date.now() - 5_000);
    await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: id, participant: erin });
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: erin });
    await waitFor(() => eventsOf(id, "meeting.ended").length === 1, 15_000, "meeting.ended");
    await waitFor(() => typesOf(id).length === 4, 10_000, "all four events delivered");
    expect(typesOf(id)).toEqual(["meeting.ended", "meeting.started", "participant.joined", "participant.left"]);
  });

  it("the API end removes everyone present: participant.left for each, then meeting.ended (ended_by_api) once", async () => {
    const id = await createMeeting("Ended by API");
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: mediaParticipant("Frank") });
    const frankLater = mediaParticipant("Grace");
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: frankLater });
    expect((await endMeeting(id)).response.status).toBe(200);
    expect((await endMeeting(id)).response.status).toBe(200);
    // The media server's own leave notifications arrive afterwards and change nothing.
    await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: id, participant: frankLater });
    await waitFor(() => eventsOf(id, "meeting.ended").length === 1, 15_000, "meeting.ended");
    await holdStill(1_000, "a negative (the replays change nothing): time for a duplicate event to be delivered");
    expect(typesOf(id)).toEqual(["meeting.ended", "meeting.started", "participant.joined", "participant.joined", "participant.left", "participant.left"]);
    expect(eventsOf(id, "meeting.ended")[0]!.data.reason).toBe("ended_by_api");
  });

  it("closes the media room of an ended meeting only when a grant or an entry may have opened it", async () => {
    const roomOpenedAt = async (id: string) =>
      (await fixture.stack.query<{ room_opened_at: Date | null }>("SELECT room_opened_at FROM meeting.meetings WHERE id = $1", [id])).rows[0]!.room_opened_at;
    const [untouched, granted, entered] = [await createMeeting("Nobody came"), await createMeeting("Granted"), await createMeeting("Entered")];
    expect((await join(granted, "Hana")).response.status).toBe(200);
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: entered, participant: mediaParticipant("Ivan") });
    expect(await roomOpenedAt(untouched)).toBeNull();
    expect(await roomOpenedAt(granted)).toBeInstanceOf(Date);
    expect(await roomOpenedAt(entered)).toBeInstanceOf(Date);

    // The grant opened a real room; the entry was only announced (no such room on the media server).
    const rooms = new RoomServiceClient(fixture.stack.media!.url, fixture.stack.media!.apiKey, fixture.stack.media!.apiSecret);
    const openRooms = async () => (await rooms.listRooms([untouched, granted, entered])).map((room) => room.name);
    expect(await openRooms()).toEqual([granted]);

    for (const id of [untouched, granted, entered]) expect((await endMeeting(id)).response.status).toBe(200);
    // The granted room is closed on the media server.
    await waitFor(async () => (await openRooms()).length === 0, 15_000, "the granted meeting's room to be closed");
    // The entered meeting's close is tried too: the media server has no such room, so it is
    // retried, then logged as failed. The untouched meeting's close is never tried.
    // (Earlier tests' meetings were entered the same way: only these three ids count here.)
    const closeFailuresOf = (id: string) =>
      fixture.stack
        .logs("meeting")
        .split("\n")
        .filter((line) => line.includes("could not close the media room") && line.includes(id));
    await waitFor(() => closeFailuresOf(entered).length === 1, 15_000, "the entered meeting's close to be tried and logged");
    await holdStill(1_000, "a negative: time for another close to have been tried as long as that one");
    expect(closeFailuresOf(granted)).toEqual([]);
    expect(closeFailuresOf(untouched)).toEqual([]);
  });

  it("ignores notifications about rooms that are not meetings", async () => {
    expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: "some-other-room", participant: mediaParticipant("X") })).toBe(200);
    expect(
      await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: "BBBBBBBBBBBBBBBBBBBBBB", participant: mediaParticipant("X") }),
    ).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  it("documents the join route (public) and every event body that was delivered above", async () => {
    const document = await fetchOpenApiDocument(fixture.stack);
    const joinRoute = document.paths["/meeting/{id}/join"].post;
    expect(joinRoute.security).toEqual([]);
    // 202: waiting in the lobby; 403: a personal link that is not valid for this meeting, or a removed person.
    expect(Object.keys(joinRoute.responses).sort()).toEqual(["200", "202", "400", "403", "404", "409", "410", "413", "429", "500", "503"]);
    const schemas = document.components.schemas;
    const grant = (await join(await createMeeting("Documented"), "Documented")).data as Record<string, unknown>;
    expectDocumentedShape(schemas.JoinGrant, grant, "JoinGrant");

    const schemaByType: Record<string, string> = {
      "meeting.started": "MeetingStartedEvent",
      "meeting.ended": "MeetingEndedEvent",
      "participant.joined": "ParticipantJoinedEvent",
      "participant.left": "ParticipantLeftEvent",
    };
    expect(Object.keys(document.webhooks).sort()).toEqual(
      [
        ...Object.keys(schemaByType),
        "meeting.cancelled",
        "meeting.no_show",
        "meeting.updated",
        "recording.started",
        "recording.ready",
        "recording.failed",
        "transcript.ready",
        "transcript.failed",
        "webhook.disabled",
      ].sort(),
    );
    for (const [type, name] of Object.entries(schemaByType)) {
      const delivered = receiver.on("/events").find((request) => request.payload?.type === type);
      expect(delivered, `a delivered ${type}`).toBeDefined();
      const envelope = schemas[name];
      expectDocumentedShape(envelope, delivered!.payload!, name);
      expectDocumentedShape(envelope.properties.data, delivered!.payload!.data, `${name}.data`);
      if (type.startsWith("participant."))
        expectDocumentedShape(schemas.ParticipantVisit, delivered!.payload!.data.participant as Record<string, unknown>, "ParticipantVisit");
    }
  });
});
