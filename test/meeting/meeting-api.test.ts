import type { components } from "@svc/client";
import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

let tenant: Tenant;
let otherTenant: Tenant;
const fixture = useStack();

beforeAll(async () => {
  [tenant, otherTenant] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
});

const MEETING_ID = /^[A-Za-z0-9_-]{22}$/;

/** @svc/client as the tenant's key unless told otherwise; `null`: no Authorization header. */
const client = (key: string | null = tenant.apiKey) => fixture.client(key ?? undefined);
const inPath = (id: string) => ({ params: { path: { id } } });

/** `body` is unknown on purpose: the tests of refused bodies send what the schema does not allow. */
const createMeeting = (body: unknown, key?: string | null) => client(key).POST("/meeting", { body: body as components["schemas"]["CreateMeetingRequest"] });
const getMeeting = (id: string, key?: string | null) => client(key).GET("/meeting/{id}", inPath(id));
const endMeeting = (id: string, key?: string | null) => client(key).POST("/meeting/{id}/end", inPath(id));

async function countMeetings(): Promise<number> {
  const { rows } = await fixture.stack.query<{ n: number }>("SELECT count(*)::int AS n FROM meeting.meetings");
  return rows[0]!.n;
}

async function createdMeeting(body: unknown, key?: string) {
  const { data, response } = await createMeeting(body, key);
  expect(response.status).toBe(200);
  return data!;
}

describe("POST /api/v1/meeting with a valid API key", () => {
  it("answers 200 with exactly {type:'svc_video', id, password:'', url} and url = PUBLIC_URL/meeting/<id>", async () => {
    const { data: body, response } = await createMeeting({ title: "Weekly sync", start: "2030-01-15T10:00:00.000Z", attendees: "ann@example.com" });
    expect(response.status).toBe(200);
    expect(Object.keys(body!).sort()).toEqual(["id", "password", "type", "url"]);
    expect(body!.type).toBe("svc_video");
    expect(body!.password).toBe("");
    expect(body!.id).toMatch(MEETING_ID);
    expect(body!.url).toBe(`${fixture.stack.gatewayUrl}/meeting/${body!.id}`);
  });

  it("stores a single attendee string as one participant", async () => {
    const { id } = await createdMeeting({ title: "One attendee", attendees: "solo@example.com" });
    const { rows } = await fixture.stack.query("SELECT email FROM meeting.participants WHERE meeting_id = $1", [id]);
    expect(rows.map((row) => row.email)).toEqual(["solo@example.com"]);
  });

  it("stores an attendee array as participants, deduplicated case-insensitively in the given order", async () => {
    const { id } = await createdMeeting({ title: "Many", attendees: ["Ann@Example.com", "bob@example.com", "ann@example.com", "BOB@example.com"] });
    const { rows } = await fixture.stack.query("SELECT email FROM meeting.participants WHERE meeting_id = $1 ORDER BY ordinal", [id]);
    expect(rows.map((row) => row.email)).toEqual(["Ann@Example.com", "bob@example.com"]);
  });

  it("records the organization and user of the key, and the trimmed title", async () => {
    const { id } = await createdMeeting({ title: "  Padded title  " });
    const { rows } = await fixture.stack.query("SELECT org_id, created_by_user_id, created_by_client_id, title FROM meeting.meetings WHERE id = $1", [id]);
    expect(rows[0]).toEqual({ org_id: tenant.orgId, created_by_user_id: tenant.userId, created_by_client_id: null, title: "Padded title" });
  });

  it("accepts a title of exactly 255 characters, null start and no attendees", async () => {
    await createdMeeting({ title: "t".repeat(255), start: null });
  });

  it("ignores unknown extra fields", async () => {
    const { id } = await createdMeeting({ title: "Extras", agenda: "ignored", attendees: [], topic: { nested: true } });
    expect(id).toMatch(MEETING_ID);
  });

  it("gives every meeting a different id", async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, async () => (await createdMeeting({ title: "Same" })).id));
    expect(new Set(ids).size).toBe(10);
  });

  it("is scheduled until someone enters its room, whatever its start (live comes from presence)", async () => {
    const future = await createdMeeting({ title: "Later", start: "2099-01-01T00:00:00+01:00" });
    const past = await createdMeeting({ title: "Earlier", start: "2020-01-01T00:00:00Z" });
    const none = await createdMeeting({ title: "Now" });
    const status = async (id: string) => (await getMeeting(id)).data!.status;
    expect(await status(future.id)).toBe("scheduled");
    expect(await status(past.id)).toBe("scheduled");
    expect(await status(none.id)).toBe("scheduled");
  });
});

describe("POST /api/v1/meeting refuses invalid bodies with 400 naming each field, and stores nothing", () => {
  const cases: [string, unknown, string][] = [
    ["no title", { attendees: "a@example.com" }, "title is required and must not be empty"],
    ["an empty title", { title: "" }, "title is required and must not be empty"],
    ["a title of spaces", { title: "   " }, "title is required and must not be empty"],
    ["a title of 256 characters", { title: "x".repeat(256) }, "title must be at most 255 characters"],
    [
      "a start without offset",
      { title: "t", start: "2030-01-15T10:00:00" },
      'start must include a UTC offset ("Z" or ±hh:mm), for example 2025-06-01T09:00:00.000Z',
    ],
    ["an impossible start date", { title: "t", start: "2030-02-30T10:00:00Z" }, "start is not a calendar date (2030-02-30 does not exist)"],
    [
      "a start that is not a date-time",
      { title: "t", start: "next tuesday" },
      "start must be an ISO 8601 date-time with a UTC offset, for example 2025-06-01T09:00:00.000Z",
    ],
    ["an empty start string", { title: "t", start: "" }, "start must be an ISO 8601 date-time with a UTC offset, for example 2025-06-01T09:00:00.000Z"],
    ["an invalid single attendee", { title: "t", attendees: "not-an-email" }, 'attendees must be e-mail addresses; not valid: "not-an-email"'],
    ["an invalid attendee in a list", { title: "t", attendees: ["ok@example.com", "bad@"] }, 'attendees must be e-mail addresses; not valid: "bad@"'],
    [
      "101 attendees",
      { title: "t", attendees: Array.from({ length: 101 }, (_, index) => `p${index}@example.com`) },
      "attendees must list at most 100 e-mail addresses (got 101)",
    ],
    ["a title that is a number", { title: 42 }, "title must be a string"],
    ["a start that is a number", { title: "t", start: 1735689600000 }, "start must be a string (an ISO 8601 date-time) or null"],
    ["attendees that is a number", { title: "t", attendees: 5 }, "attendees must be an e-mail address or an array of e-mail addresses"],
    [
      "attendees with a non-string item",
      { title: "t", attendees: ["a@example.com", 7] },
      "attendees must be an e-mail address or an array of e-mail addresses",
    ],
    ["an array body", [{ title: "t" }], "Request body must be a JSON object"],
    [
      "several invalid fields",
      { title: "", start: "2030-13-01T00:00:00Z", attendees: ["x"] },
      'title is required and must not be empty; start is not a calendar date (2030-13-01 does not exist); attendees must be e-mail addresses; not valid: "x"',
    ],
  ];

  it.each(cases)("%s", async (_name, body, message) => {
    const before = await countMeetings();
    const { error, response } = await createMeeting(body);
    expect(response.status).toBe(400);
    expect(error).toEqual({ error: message, requestId: response.headers.get("x-request-id") });
    expect(await countMeetings()).toBe(before);
  });

  // No client sends these two: they go on the wire as they are (callApi).
  it("malformed JSON: 400 with a clear message", async () => {
    const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: tenant.apiKey, rawBody: '{"title": "t",' });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe("Malformed JSON in request body");
  });

  it("a body that is not JSON: 400 naming the content type", async () => {
    const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", {
      key: tenant.apiKey,
      rawBody: "title=t",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe("Content-Type must be application/json");
  });

  it("a body over 100 KB: 413", async () => {
    const { response } = await createMeeting({ title: "t", notes: "x".repeat(110_000) });
    expect(response.status).toBe(413);
  });
});

describe("POST /api/v1/meeting authentication", () => {
  it("401 with WWW-Authenticate: Bearer without an Authorization header", async () => {
    const { error, response } = await createMeeting({ title: "t" }, null);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(error?.error).toEqual(expect.any(String));
  });

  it('401 with error="invalid_token" for an unknown key, and nothing is stored', async () => {
    const before = await countMeetings();
    const { response } = await createMeeting({ title: "t" }, `svc_${"0".repeat(43)}`);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await countMeetings()).toBe(before);
  });
});

describe("GET /api/v1/meeting/:id", () => {
  it("returns the stored meeting with status, start, attendees, createdAt and endedAt", async () => {
    const { id, url } = await createdMeeting({ title: "Review", start: "2099-03-01T09:30:00+02:00", attendees: ["a@example.com", "b@example.com"] });
    const { data: body, response } = await getMeeting(id);
    expect(response.status).toBe(200);
    expect(body).toEqual({
      type: "svc_video",
      id,
      password: "",
      url,
      title: "Review",
      start: "2099-03-01T07:30:00.000Z",
      end: null,
      status: "scheduled",
      attendees: ["a@example.com", "b@example.com"],
      hosts: [],
      lobby: false,
      screenShare: "everyone",
      noShowAfterMinutes: 5,
      recording: "off",
      transcription: "off",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      endedAt: null,
      cancelledAt: null,
    });
  });

  it("another organization's meeting is 404 Meeting not found", async () => {
    const { id } = await createdMeeting({ title: "Private" });
    const { error, response } = await getMeeting(id, otherTenant.apiKey);
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ error: "Meeting not found" });
  });

  it("an unknown or malformed id is 404", async () => {
    // The client encodes the path parameter: the last goes out as '%20OR%201%3D1.
    for (const id of ["AAAAAAAAAAAAAAAAAAAAAA", "nope", "' OR 1=1"]) {
      const { response } = await getMeeting(id);
      expect(response.status).toBe(404);
    }
  });

  it("needs a valid credential (401)", async () => {
    const { id } = await createdMeeting({ title: "t" });
    expect((await getMeeting(id, null)).response.status).toBe(401);
  });
});

describe("POST /api/v1/meeting/:id/end", () => {
  it("ends the meeting: 200 with status ended and endedAt", async () => {
    const { id } = await createdMeeting({ title: "To end", attendees: "x@example.com" });
    const { data: body, response } = await endMeeting(id);
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ id, status: "ended", endedAt: expect.any(String) });
    expect((await getMeeting(id)).data!.status).toBe("ended");
  });

  it("ends a scheduled meeting too", async () => {
    const { id } = await createdMeeting({ title: "Future", start: "2099-01-01T00:00:00Z" });
    expect((await endMeeting(id)).data!.status).toBe("ended");
  });

  it("is idempotent: a second end answers 200 with the same endedAt and writes one outbox event", async () => {
    const { id } = await createdMeeting({ title: "Twice" });
    const first = (await endMeeting(id)).data!;
    const second = await endMeeting(id);
    expect(second.response.status).toBe(200);
    expect(second.data!.endedAt).toBe(first.endedAt);
    const { rows } = await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.outbox WHERE key = $1", [id]);
    expect(rows[0]!.n).toBe(1);
  });

  it("concurrent ends of one meeting write one outbox event", async () => {
    const { id } = await createdMeeting({ title: "Race" });
    const answers = await Promise.all(Array.from({ length: 8 }, () => endMeeting(id)));
    expect(answers.map(({ response }) => response.status)).toEqual(Array(8).fill(200));
    const { rows } = await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.outbox WHERE key = $1", [id]);
    expect(rows[0]!.n).toBe(1);
  });

  it("another organization cannot end a meeting: 404, and the meeting is unchanged", async () => {
    const { id } = await createdMeeting({ title: "Not yours" });
    const { response } = await endMeeting(id, otherTenant.apiKey);
    expect(response.status).toBe(404);
    expect((await getMeeting(id)).data!.status).toBe("scheduled");
    const { rows } = await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.outbox WHERE key = $1", [id]);
    expect(rows[0]!.n).toBe(0);
  });

  it("an unknown meeting is 404", async () => {
    expect((await endMeeting("AAAAAAAAAAAAAAAAAAAAAA")).response.status).toBe(404);
  });
});

describe("the join page at PUBLIC_URL/meeting/:id", () => {
  const page = (id: string) => fetch(`${fixture.stack.gatewayUrl}/meeting/${id}`);

  it("shows title (escaped), start, status and the number of invited people, without a credential", async () => {
    const { url } = await createdMeeting({
      title: "<script>alert(1)</script> Planning",
      start: "2099-06-01T09:00:00Z",
      attendees: ["a@example.com", "b@example.com", "c@example.com"],
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; Planning");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain('datetime="2099-06-01T09:00:00.000Z"');
    expect(html).toContain("Monday, 1 June 2099 at 09:00 UTC");
    expect(html).toContain('data-status="scheduled"');
    expect(html).toContain("3 people");
    // Who was invited is not for anyone holding the link.
    expect(html).not.toContain("a@example.com");
  });

  it("shows a clear ended state once the meeting has ended", async () => {
    const { id } = await createdMeeting({ title: "Finished" });
    await endMeeting(id);
    const html = await (await page(id)).text();
    expect(html).toContain('data-status="ended"');
    expect(html).toContain("This meeting has ended");
  });

  it("answers an unknown id with a 404 HTML page", async () => {
    const response = await page("AAAAAAAAAAAAAAAAAAAAAA");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toContain("Meeting not found");
  });
});

describe("when the meeting service cannot reach its tables", () => {
  it("POST /meeting answers 500 {error:'Failed to create meeting'} and leaks no detail; GET answers a generic 500", async () => {
    const { id } = await createdMeeting({ title: "Before the outage" });
    // Make this stack's meeting schema unreachable (the shared Postgres keeps running for everyone else).
    await fixture.stack.query("ALTER SCHEMA meeting RENAME TO meeting_unreachable");
    try {
      const { error, response } = await createMeeting({ title: "During the outage", attendees: "a@example.com" });
      expect(response.status).toBe(500);
      expect(error).toEqual({ error: "Failed to create meeting", requestId: response.headers.get("x-request-id") });
      expect(JSON.stringify(error)).not.toMatch(/relation|schema|meetings|sql|postgres|stack|at /i);

      const read = await getMeeting(id);
      expect(read.response.status).toBe(500);
      expect(read.error).toMatchObject({ error: "Internal server error" });
    } finally {
      await fixture.stack.query("ALTER SCHEMA meeting_unreachable RENAME TO meeting");
    }
    // And it recovers without a restart.
    await createdMeeting({ title: "After the outage" });
    expect(fixture.stack.logs("meeting")).toContain("failed to store a new meeting");
  });
});
