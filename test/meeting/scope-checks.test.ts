import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, createCallerResolver, createLogger } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { CredentialKind, IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import { MeetingService, MeetingStatus } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { pgMeetingStore } from "../../services/meeting/src/db/pg-meeting-store.ts";
import { pgJoinLinkStore } from "../../services/meeting/src/db/pg-join-link-store.ts";
import { pgVisitStore } from "../../services/meeting/src/db/pg-visit-store.ts";
import { meetingService } from "../../services/meeting/src/handlers/meeting-service.ts";
import { createJoinLinks } from "../../services/meeting/src/room/join-links.ts";
import { createMeetingLifecycle } from "../../services/meeting/src/room/meeting-lifecycle.ts";
import { createServiceDatabase, type ServiceDatabase } from "../support/service-database.ts";
import { bearer, refusal } from "../support/connect-refusal.ts";

// The OAuth scope checks of the meeting service, through its real gRPC handlers, the real
// platform authenticator and a real database. Identity here is an in-memory stand-in that
// answers VerifyCredential with an OAuth credential carrying the scopes named in the token, so
// every scope can be checked without an OAuth flow. The end-to-end 403 over REST with a real
// OAuth token is in test/oauth/authorization-code-flow.test.ts and test/webhook/oauth-scopes.test.ts.

const logger = createLogger("scope-checks-test", "silent");
let database: ServiceDatabase;
let pool: Pool;

/** Token "oauth:<scope>,<scope>" is an OAuth token with those scopes; "key" is an API key. */
const identity = createRouterTransport((router) =>
  router.service(IdentityService, {
    verifyCredential(_request, context) {
      const token = (context.requestHeader.get("authorization") ?? "").replace(/^Bearer /, "");
      if (token === "key") return { userId: "user-1", orgId: "org-1", kind: CredentialKind.API_KEY, scopes: [], clientId: "" };
      if (token.startsWith("oauth:")) {
        const scopes = token.slice("oauth:".length).split(",").filter(Boolean);
        return { userId: "user-1", orgId: "org-1", kind: CredentialKind.OAUTH, scopes, clientId: "client-1" };
      }
      throw new ConnectError("Invalid token", Code.Unauthenticated);
    },
  }),
);

let meetings: ReturnType<typeof createClient<typeof MeetingService>>;

beforeAll(async () => {
  database = await createServiceDatabase("meeting", logger);
  pool = database.pool;
  const transport = createRouterTransport((router) =>
    router.service(
      MeetingService,
      meetingService({
        authenticate: createAuthenticator(createCallerResolver({ identity })),
        meetings: pgMeetingStore(pool),
        lifecycle: createMeetingLifecycle({ pool, graceSeconds: 60, outboxWritten: () => undefined, logger }),
        publicUrl: "https://meet.example.com",
        logger,
        roomClosed: () => undefined,
        links: createJoinLinks({ store: pgJoinLinkStore(pool) }),
        visits: pgVisitStore(pool),
        rightsChanged: () => undefined,
      }),
    ),
  );
  meetings = createClient(MeetingService, transport);
});
afterAll(async () => {
  await database?.drop();
});

async function count(sql: string): Promise<number> {
  return (await pool.query<{ n: number }>(sql)).rows[0]!.n;
}

describe("OAuth scope checks in the meeting service", () => {
  it("CreateMeeting without meeting.create: PERMISSION_DENIED 'Insufficient scope: meeting.create', nothing stored", async () => {
    const before = await count("SELECT count(*)::int AS n FROM meetings");
    const error = await refusal(meetings.createMeeting({ title: "t" }, bearer("oauth:meeting.read,meeting.update,webhook.create")));
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe("Insufficient scope: meeting.create");
    expect(error.metadata.get("x-required-scope")).toBe("meeting.create");
    expect(await count("SELECT count(*)::int AS n FROM meetings")).toBe(before);
  });

  it("CreateMeeting with meeting.create succeeds and records the OAuth client", async () => {
    const { meeting } = await meetings.createMeeting({ title: "By an app" }, bearer("oauth:meeting.create"));
    expect(meeting!.createdByClientId).toBe("client-1");
    expect(meeting!.joinUrl).toBe(`https://meet.example.com/meeting/${meeting!.id}`);
  });

  it("the scope check comes before validation: an invalid request without the scope is 403, not 400", async () => {
    const error = await refusal(meetings.createMeeting({ title: "" }, bearer("oauth:")));
    expect(error.code).toBe(Code.PermissionDenied);
  });

  it("GetMeeting and ListMeetings need meeting.read", async () => {
    const { meeting } = await meetings.createMeeting({ title: "t" }, bearer("key"));
    for (const call of [meetings.getMeeting({ id: meeting!.id }, bearer("oauth:meeting.create")), meetings.listMeetings({}, bearer("oauth:meeting.create"))]) {
      const error = await refusal(call);
      expect(error.code).toBe(Code.PermissionDenied);
      expect(error.rawMessage).toBe("Insufficient scope: meeting.read");
    }
    expect((await meetings.getMeeting({ id: meeting!.id }, bearer("oauth:meeting.read"))).meeting!.id).toBe(meeting!.id);
  });

  it("EndMeeting needs meeting.update, and a refused end changes nothing", async () => {
    const { meeting } = await meetings.createMeeting({ title: "t" }, bearer("key"));
    const error = await refusal(meetings.endMeeting({ id: meeting!.id }, bearer("oauth:meeting.create,meeting.read")));
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe("Insufficient scope: meeting.update");
    expect(await count(`SELECT count(*)::int AS n FROM outbox WHERE key = '${meeting!.id}'`)).toBe(0);
    const ended = await meetings.endMeeting({ id: meeting!.id }, bearer("oauth:meeting.update"));
    expect(ended.endedNow).toBe(true);
  });

  it("UpdateMeeting needs meeting.update and CancelMeeting meeting.delete; refused calls change nothing", async () => {
    const { meeting } = await meetings.createMeeting({ title: "Before" }, bearer("key"));
    const update = { id: meeting!.id, updateMask: { paths: ["title"] }, title: "After" };
    const updateError = await refusal(meetings.updateMeeting(update, bearer("oauth:meeting.read,meeting.delete")));
    expect(updateError.rawMessage).toBe("Insufficient scope: meeting.update");
    const cancelError = await refusal(meetings.cancelMeeting({ id: meeting!.id }, bearer("oauth:meeting.update")));
    expect(cancelError.rawMessage).toBe("Insufficient scope: meeting.delete");
    expect((await meetings.getMeeting({ id: meeting!.id }, bearer("key"))).meeting).toMatchObject({ title: "Before", status: MeetingStatus.SCHEDULED });
    expect((await meetings.updateMeeting(update, bearer("oauth:meeting.update"))).changedFields).toEqual(["title"]);
    expect((await meetings.cancelMeeting({ id: meeting!.id }, bearer("oauth:meeting.delete"))).cancelledNow).toBe(true);
  });

  it("CreateJoinLink, RevokeJoinLink and ListJoinLinks need meeting.links; ListParticipants needs meeting.read", async () => {
    const { meeting } = await meetings.createMeeting({ title: "Links", hosts: ["host@example.com"] }, bearer("key"));
    const request = { meetingId: meeting!.id, email: "host@example.com" };
    const refused = await refusal(meetings.createJoinLink(request, bearer("oauth:meeting.create,meeting.read,meeting.update")));
    expect(refused.rawMessage).toBe("Insufficient scope: meeting.links");
    expect(await count(`SELECT count(*)::int AS n FROM join_links WHERE meeting_id = '${meeting!.id}'`)).toBe(0);
    const { link } = await meetings.createJoinLink(request, bearer("oauth:meeting.links"));
    expect(link!.url).toMatch(new RegExp(`^https://meet\\.example\\.com/meeting/${meeting!.id}#link=[A-Za-z0-9_-]{43}$`));
    const revokeRefused = await refusal(meetings.revokeJoinLink({ meetingId: meeting!.id, linkId: link!.linkId }, bearer("oauth:meeting.delete")));
    expect(revokeRefused.rawMessage).toBe("Insufficient scope: meeting.links");
    expect((await meetings.revokeJoinLink({ meetingId: meeting!.id, linkId: link!.linkId }, bearer("oauth:meeting.links"))).revokedNow).toBe(true);
    const linksRefused = await refusal(meetings.listJoinLinks({ meetingId: meeting!.id }, bearer("oauth:meeting.read")));
    expect(linksRefused.rawMessage).toBe("Insufficient scope: meeting.links");
    const { links } = await meetings.listJoinLinks({ meetingId: meeting!.id }, bearer("oauth:meeting.links"));
    expect(links.map((listed) => [listed.linkId, listed.state])).toEqual([[link!.linkId, "revoked"]]);
    const listRefused = await refusal(meetings.listParticipants({ meetingId: meeting!.id }, bearer("oauth:meeting.links")));
    expect(listRefused.rawMessage).toBe("Insufficient scope: meeting.read");
    expect((await meetings.listParticipants({ meetingId: meeting!.id }, bearer("oauth:meeting.read"))).participants).toEqual([]);
  });

  it("an API key needs no scope for any operation", async () => {
    const { meeting } = await meetings.createMeeting({ title: "t" }, bearer("key"));
    await meetings.getMeeting({ id: meeting!.id }, bearer("key"));
    await meetings.listMeetings({}, bearer("key"));
    expect((await meetings.endMeeting({ id: meeting!.id }, bearer("key"))).endedNow).toBe(true);
  });

  it("a call without credential is UNAUTHENTICATED", async () => {
    const error = await refusal(meetings.createMeeting({ title: "t" }));
    expect(error.code).toBe(Code.Unauthenticated);
  });
});
