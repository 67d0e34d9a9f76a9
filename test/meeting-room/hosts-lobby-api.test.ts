import { beforeAll, describe, expect, it } from "vitest";
import { mediaParticipant, sendMediaWebhook, type MediaParticipant } from "../support/media-webhooks.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";

// Hosts, personal links, the lobby, host actions, chat, attendance and no-shows through the REST
// API, as the room page and a scheduler use them, against a real LiveKit (join grants open its
// rooms). Presence comes as LiveKit's signed webhooks for the grants' identities; deliveries are
// verified with `standardwebhooks` by the receiver. The same flows in real browsers are in
// room-hosts.test.ts.
let tenant: Tenant;
let otherTenant: Tenant;
const fixture = useStack({ media: true, env: { NO_SHOW_CHECK_INTERVAL_MS: "500", WEBHOOK_POLL_INTERVAL_MS: "200", MEETING_EMPTY_GRACE_SECONDS: "60" } });
const receiver = useWebhookReceiver();

beforeAll(async () => {
  [tenant, otherTenant] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/events", { events: ["meeting.ended", "meeting.no_show"] });
});

const api = (method: string, path: string, body?: unknown, key = tenant.apiKey) => callApi(apiBase(fixture.stack), method, path, { key, body });
const publicCall = (method: string, path: string, options: { body?: unknown; session?: string; cookie?: string } = {}) =>
  callApi(apiBase(fixture.stack), method, path, {
    body: options.body,
    ...(options.cookie ? { cookie: options.cookie } : {}),
    headers: options.session ? { "x-room-session": options.session } : {},
  });
const events = (meetingId: string, type: string) =>
  receiver.on("/events").filter((request) => !request.verificationError && request.payload?.type === type && request.payload.data.meetingId === meetingId);

async function createMeeting(body: Record<string, unknown>, key = tenant.apiKey) {
  const response = await api("POST", "/meeting", body, key);
  expect(response.status).toBe(200);
  const created = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(created).sort(), "the creation answer stays exactly {type, id, password, url}").toEqual(["id", "password", "type", "url"]);
  return created as { id: string; url: string };
}

async function link(meetingId: string, body: Record<string, unknown>) {
  const response = await api("POST", `/meeting/${meetingId}/links`, body);
  expect(response.status, await response.clone().text()).toBe(201);
  const created = (await response.json()) as { linkId: string; url: string; role: string; email: string | null; expiresAt: string };
  return { ...created, secret: new URL(created.url).hash.replace("#link=", "") };
}

/** Joins like the page does, keeping the browser's cookie jar of one person. */
async function join(meetingId: string, displayName: string, options: { link?: string; cookie?: string } = {}) {
  const response = await publicCall("POST", `/meeting/${meetingId}/join`, {
    body: { displayName, ...(options.link ? { link: options.link } : {}) },
    cookie: options.cookie,
  });
  const setCookie = response.headers.get("set-cookie");
  const cookie = setCookie ? setCookie.split(";")[0]! : options.cookie;
  return {
    response,
    cookie,
    body: (await response
      .clone()
      .json()
      .catch(() => ({}))) as Record<string, unknown>,
  };
}

/** POST /meeting/{id}/link-holder: whom a personal link is for. */
async function holder(meetingId: string, secret: string) {
  const response = await publicCall("POST", `/meeting/${meetingId}/link-holder`, { body: { link: secret } });
  const body = (await response.json()) as Record<string, unknown>;
  // Error bodies carry the request's reference too; the words are what the page shows.
  return { status: response.status, body: response.ok ? body : { error: body.error } };
}

/** LiveKit says the grant's identity entered the room. */
async function enter(meetingId: string, participantId: string, name: string): Promise<MediaParticipant> {
  const participant = { ...mediaParticipant(name), identity: participantId };
  expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId, participant })).toBe(200);
  return participant;
}

describe("hosts, personal links and the lobby", () => {
  it(
    "a host link enters at once as host; an attendee link and the plain URL wait; the host admits, denies, locks; guests get 403 for host actions",
    { timeout: 120_000 },
    async () => {
      const meeting = await createMeeting({ title: "Board", hosts: "host@example.com", attendees: ["ada@example.com"], lobby: true });
      expect(await (await api("GET", `/meeting/${meeting.id}`)).json()).toMatchObject({
        hosts: ["host@example.com"],
        lobby: true,
        screenShare: "everyone",
        noShowAfterMinutes: 5,
        recording: "off",
      });
      const hostLink = await link(meeting.id, { email: "HOST@example.com" });
      expect(hostLink).toMatchObject({ role: "host", email: "host@example.com" });
      const adaLink = await link(meeting.id, { email: "ada@example.com" });
      expect(adaLink.role).toBe("attendee");
      await expect((await api("POST", `/meeting/${meeting.id}/links`, { email: "stranger@example.com" })).status).toBe(400);
      await expect((await api("POST", `/meeting/${meeting.id}/links`, { role: "guest" })).status).toBe(400);
      const guestLink = await link(meeting.id, { role: "guest", name: "Grace Guest" });
      expect(guestLink.role).toBe("guest");

      const host = await join(meeting.id, "Hostess", { link: hostLink.secret });
      expect(host.response.status).toBe(200);
      expect(host.body).toMatchObject({ role: "host" });
      const hostClaims = JSON.parse(Buffer.from(String(host.body.token).split(".")[1]!, "base64url").toString()) as { attributes: Record<string, string> };
      expect(hostClaims.attributes).toEqual({ role: "host" });
      const hostSession = String(host.body.roomSession);
      await enter(meeting.id, String(host.body.participantId), "Hostess");

      const ada = await join(meeting.id, "Ada", { link: adaLink.secret });
      expect(ada.response.status).toBe(202);
      expect(ada.body).toMatchObject({ status: "waiting", role: "attendee" });
      const guest = await join(meeting.id, "Walk-in");
      expect(guest.response.status).toBe(202);
      expect(guest.cookie, "the browser session gets its visitor cookie").toMatch(/^svc_room_visitor=/);

      const lobby = (await (await publicCall("GET", `/meeting/${meeting.id}/room/lobby`, { session: hostSession })).json()) as {
        waiting: { entryId: string; displayName: string }[];
      };
      expect(lobby.waiting.map((entry) => entry.displayName)).toEqual(["Ada", "Walk-in"]);
      const status = async (ticket: unknown) =>
        (await (await publicCall("POST", `/meeting/${meeting.id}/lobby/status`, { body: { ticket } })).json()) as {
          status: string;
          grant: Record<string, unknown> | null;
        };
      expect((await status(ada.body.lobbyTicket)).status).toBe("waiting");

      // Lock: whoever waits sees it; nobody new enters; the host still decides.
      expect((await publicCall("POST", `/meeting/${meeting.id}/room/lock`, { session: hostSession, body: { locked: true } })).status).toBe(200);
      expect((await status(guest.body.lobbyTicket)).status).toBe("locked");
      const lockedOut = await join(meeting.id, "Latecomer");
      expect(lockedOut.response.status).toBe(409);
      expect(lockedOut.body.error).toMatch(/locked/);
      expect((await publicCall("POST", `/meeting/${meeting.id}/room/lock`, { session: hostSession, body: { locked: false } })).status).toBe(200);

      const decide = (entryId: string, admit: boolean, session = hostSession) =>
        publicCall("POST", `/meeting/${meeting.id}/room/lobby/${entryId}`, { session, body: { admit } });
      expect((await decide(lobby.waiting[0]!.entryId, true)).status).toBe(200);
      expect((await decide(lobby.waiting[1]!.entryId, false)).status).toBe(200);
      const admitted = await status(ada.body.lobbyTicket);
      expect(admitted.status).toBe("admitted");
      expect(admitted.grant).toMatchObject({ role: "attendee", meeting: { id: meeting.id } });
      expect((await status(guest.body.lobbyTicket)).status).toBe("denied");

      // A participant without the host role is refused every host action, whatever their page shows.
      const adaSession = String(admitted.grant!.roomSession);
      for (const [method, path, body] of [
        ["GET", "/room/lobby", undefined],
        ["POST", `/room/lobby/${lobby.waiting[1]!.entryId}`, { admit: true }],
        ["POST", "/room/lock", { locked: true }],
        ["POST", `/room/participants/${String(host.body.participantId)}/mute`, { source: "microphone" }],
        ["POST", `/room/participants/${String(host.body.participantId)}/remove`, undefined],
        ["POST", "/room/end", undefined],
      ] as const) {
        const refused = await publicCall(method, `/meeting/${meeting.id}${path}`, { session: adaSession, body });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(((await refused.json()) as { error: string }).error).toBe("Only a host of this meeting can do this");
      }
      expect((await publicCall("POST", `/meeting/${meeting.id}/room/end`)).status, "no room session at all").toBe(401);
      expect((await publicCall("POST", `/meeting/${meeting.id}/room/end`, { session: "x".repeat(43) })).status).toBe(401);
      expect((await (await api("GET", `/meeting/${meeting.id}`)).json()).status).toBe("live");
    },
  );

  it("links are refused for another meeting, once revoked, and once expired; the plain URL still works for a guest", { timeout: 60_000 }, async () => {
    const meeting = await createMeeting({ title: "Links", attendees: ["bob@example.com"] });
    const other = await createMeeting({ title: "Elsewhere", attendees: ["bob@example.com"] });
    const bobsOther = await link(other.id, { email: "bob@example.com" });
    const refused = await join(meeting.id, "Bob", { link: bobsOther.secret });
    expect(refused.response.status).toBe(403);
    expect(refused.body.error).toBe("This join link is for another meeting");
    // What the join page asks first: whom a link is for (name to prefill, role), or why it does not work.
    expect(await holder(meeting.id, bobsOther.secret)).toEqual({ status: 403, body: { error: "This join link is for another meeting" } });
    const named = await link(meeting.id, { email: "bob@example.com", name: "Bob Builder" });
    expect(await holder(meeting.id, named.secret)).toEqual({ status: 200, body: { role: "attendee", name: "Bob Builder" } });
    const guest = await link(meeting.id, { role: "guest", name: "Grace Guest" });
    expect(await holder(meeting.id, guest.secret)).toEqual({ status: 200, body: { role: "guest", name: "Grace Guest" } });
    expect((await holder(meeting.id, "not-a-link")).status).toBe(403);
    expect((await holder("x".repeat(22), named.secret)).status, "an unknown meeting").toBe(404);
    expect((await publicCall("POST", `/meeting/${meeting.id}/link-holder`, { body: {} })).status, "no link").toBe(400);

    const bob = await link(meeting.id, { email: "bob@example.com" });
    expect((await api("DELETE", `/meeting/${meeting.id}/links/${bob.linkId}`)).status).toBe(200);
    expect((await api("DELETE", `/meeting/${meeting.id}/links/${bob.linkId}`, undefined, otherTenant.apiKey)).status, "another organization's").toBe(404);
    expect((await join(meeting.id, "Bob", { link: bob.secret })).body.error).toBe("This join link was revoked");
    expect(await holder(meeting.id, bob.secret)).toEqual({ status: 403, body: { error: "This join link was revoked" } });

    const shortLivedUntil = Date.now() + 1_500;
    const shortLived = await link(meeting.id, { email: "bob@example.com", expiresAt: new Date(shortLivedUntil).toISOString() });
    expect((await join(meeting.id, "Bob", { link: shortLived.secret })).response.status).toBe(200);
    await holdStill(shortLivedUntil + 100 - Date.now(), "past the link's expiry, which the service measures");
    const expired = await join(meeting.id, "Bob", { link: shortLived.secret });
    expect(expired.response.status).toBe(403);
    expect(expired.body.error).toBe("This join link has expired");
    expect(await holder(meeting.id, shortLived.secret)).toEqual({ status: 403, body: { error: "This join link has expired" } });
    expect((await join(meeting.id, "Bob", { link: "not-a-link" })).body.error).toBe("This join link is not valid");
    const plain = await join(meeting.id, "Just Bob");
    expect(plain.response.status).toBe(200);
    expect(plain.body.role).toBe("guest");
    expect((await api("POST", `/meeting/${meeting.id}/links`, { email: "bob@example.com" }, otherTenant.apiKey)).status).toBe(404);
  });
});

describe("removal, chat, attendance and no-shows", () => {
  it(
    "a removed person cannot come back by link or browser session; chat reaches late joiners and is forgotten at the end; meeting.ended and the participants API name who came; one meeting.no_show for who did not",
    { timeout: 150_000 },
    async () => {
      const start = new Date(Date.now() - 45_000);
      const meeting = await createMeeting({
        title: "Weekly",
        start: start.toISOString(),
        hosts: ["host@example.com"],
        attendees: ["ada@example.com", "absent@example.com"],
        noShowAfterMinutes: 1,
      });
      const hostLink = await link(meeting.id, { email: "host@example.com" });
      const adaLink = await link(meeting.id, { email: "ada@example.com" });
      const host = await join(meeting.id, "Hostess", { link: hostLink.secret });
      const hostSession = String(host.body.roomSession);
      const hostIn = await enter(meeting.id, String(host.body.participantId), "Hostess");
      const ada = await join(meeting.id, "Ada", { link: adaLink.secret });
      const adaIn = await enter(meeting.id, String(ada.body.participantId), "Ada");
      const guest = await join(meeting.id, "Walk-in");
      await enter(meeting.id, String(guest.body.participantId), "Walk-in");

      // Chat: names and times from the server; a limit; late joiners see the history.
      const say = (session: unknown, text: string) => publicCall("POST", `/meeting/${meeting.id}/room/chat`, { session: String(session), body: { text } });
      const sent = await say(ada.body.roomSession, "  Hello <b>all</b> https://example.com  ");
      expect(sent.status).toBe(201);
      expect(await sent.json()).toMatchObject({ displayName: "Ada", text: "Hello <b>all</b> https://example.com", participantId: ada.body.participantId });
      expect((await say(ada.body.roomSession, "x".repeat(1_001))).status).toBe(400);
      expect((await say(ada.body.roomSession, "   ")).status).toBe(400);
      expect((await say(hostSession, "Welcome")).status).toBe(201);
      const late = await join(meeting.id, "Late Larry");
      const history = (await (await publicCall("GET", `/meeting/${meeting.id}/room/chat`, { session: String(late.body.roomSession) })).json()) as {
        messages: { displayName: string; text: string; sentAt: string }[];
      };
      expect(history.messages.map((message) => [message.displayName, message.text])).toEqual([
        ["Ada", "Hello <b>all</b> https://example.com"],
        ["Hostess", "Welcome"],
      ]);

      // Remove the guest: gone from the room, and neither the same browser session nor the same link comes back.
      expect(
        (await publicCall("POST", `/meeting/${meeting.id}/room/participants/${String(guest.body.participantId)}/remove`, { session: hostSession })).status,
      ).toBe(200);
      const again = await join(meeting.id, "Walk-in again", { cookie: guest.cookie });
      expect(again.response.status).toBe(403);
      expect(again.body.error).toBe("You were removed from this meeting");
      expect((await say(guest.body.roomSession, "let me back")).status).toBe(403);
      expect(
        (await publicCall("POST", `/meeting/${meeting.id}/room/participants/${String(ada.body.participantId)}/remove`, { session: hostSession })).status,
      ).toBe(200);
      expect((await join(meeting.id, "Ada", { link: adaLink.secret })).body.error, "the removed person's link").toBe("You were removed from this meeting");
      expect((await join(meeting.id, "Someone else")).response.status, "another browser session with the plain URL").toBe(200);

      // No-show: a minute after the start, once for the attendee who never came (not for those who did).
      await waitFor(() => events(meeting.id, "meeting.no_show").length >= 1, 40_000, "meeting.no_show");
      expect((await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: meeting.id, participant: adaIn })).valueOf()).toBe(200);

      // The host ends it for everyone: meeting.ended with the attendance summary.
      expect((await publicCall("POST", `/meeting/${meeting.id}/room/end`, { session: hostSession })).status).toBe(200);
      await waitFor(() => events(meeting.id, "meeting.ended").length === 1, 20_000, "meeting.ended");
      const ended = events(meeting.id, "meeting.ended")[0]!.payload!.data as {
        reason: string;
        attendance: { invitees: { email: string; role: string; joined: boolean; totalSeconds: number; firstJoinedAt: string | null }[]; guests: number };
        participants: { displayName: string; role: string; email: string | null }[];
      };
      expect(ended.reason).toBe("ended_by_host");
      expect(ended.attendance.guests).toBe(1);
      expect(ended.attendance.invitees.map(({ email, role, joined }) => ({ email, role, joined }))).toEqual([
        { email: "host@example.com", role: "host", joined: true },
        { email: "ada@example.com", role: "attendee", joined: true },
        { email: "absent@example.com", role: "attendee", joined: false },
      ]);
      expect(ended.attendance.invitees[0]!.firstJoinedAt).toBe(new Date(hostIn.joinedAtMs).toISOString());
      expect(ended.attendance.invitees[1]!.totalSeconds).toBeGreaterThanOrEqual(0);
      expect(ended.participants.map((visit) => [visit.displayName, visit.role, visit.email])).toEqual([
        ["Hostess", "host", "host@example.com"],
        ["Ada", "attendee", "ada@example.com"],
        ["Walk-in", "guest", null],
      ]);

      const list = (await (await api("GET", `/meeting/${meeting.id}/participants?pageSize=2`)).json()) as {
        participants: { name: string; email: string | null; role: string; leftAt: string | null; durationSeconds: number }[];
        nextPageToken: string | null;
      };
      expect(list.participants.map((visit) => [visit.name, visit.role, visit.email])).toEqual([
        ["Hostess", "host", "host@example.com"],
        ["Ada", "attendee", "ada@example.com"],
      ]);
      expect(list.participants.every((visit) => visit.leftAt !== null && visit.durationSeconds >= 0)).toBe(true);
      const rest = (await (await api("GET", `/meeting/${meeting.id}/participants?pageToken=${list.nextPageToken}`)).json()) as {
        participants: { name: string }[];
      };
      expect(rest.participants.map((visit) => visit.name)).toEqual(["Walk-in"]);

      // Nothing of the chat is kept after the meeting.
      expect((await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.room_chat_messages WHERE meeting_id = $1", [meeting.id])).rows[0]!.n).toBe(0);
      // A negative (exactly once): time for a duplicate no-show to be written and delivered.
      await holdStill(2_000, "time for a duplicate no-show to be written and delivered, if one were");
      expect(events(meeting.id, "meeting.no_show").map((event) => event.payload!.data)).toEqual([
        { meetingId: meeting.id, orgId: tenant.orgId, title: "Weekly", email: "absent@example.com", role: "attendee", start: start.toISOString() },
      ]);
    },
  );

  it("no meeting.no_show for a cancelled meeting or one without a start", { timeout: 60_000 }, async () => {
    // Cancelled before its no-show time comes (a meeting already past it could be reported, rightly,
    // in the moment between its creation and its cancellation: the checker runs every 500 ms here).
    const cancelledNoShowAt = Date.now() + 10_000;
    const cancelled = await createMeeting({
      title: "Off",
      start: new Date(cancelledNoShowAt - 60_000).toISOString(),
      attendees: ["x@example.com"],
      noShowAfterMinutes: 1,
    });
    expect((await api("DELETE", `/meeting/${cancelled.id}`)).status).toBe(200);
    expect(Date.now(), "cancelled before its no-show time").toBeLessThan(cancelledNoShowAt);
    const unscheduled = await createMeeting({ title: "Whenever", attendees: ["y@example.com"], noShowAfterMinutes: 1 });
    const reported = await createMeeting({
      title: "Reported",
      start: new Date(Date.now() - 120_000).toISOString(),
      attendees: ["z@example.com"],
      noShowAfterMinutes: 1,
    });
    await waitFor(() => events(reported.id, "meeting.no_show").length === 1, 20_000, "the control meeting's no-show");
    await holdStill(
      Math.max(0, cancelledNoShowAt - Date.now()) + 2_000,
      "past the cancelled meeting's no-show time, and the checker's runs after it, which would report it if a cancelled meeting counted",
    );
    expect(events(cancelled.id, "meeting.no_show")).toHaveLength(0);
    expect(events(unscheduled.id, "meeting.no_show")).toHaveLength(0);
    expect((await api("GET", `/meeting/${cancelled.id}/participants`)).status).toBe(410);
  });
});
