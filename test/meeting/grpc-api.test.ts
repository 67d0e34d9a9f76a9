import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CreateMeetingRequestSchema,
  CreateMeetingResponseSchema,
  MeetingPageService,
  MeetingService,
  MeetingStatus,
} from "@svc/proto/svc/meeting/v1/meeting_pb";
import { grpcJsClient } from "../support/grpc-js.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { bearer, refusal } from "../support/connect-refusal.ts";

let tenant: Tenant;
let otherTenant: Tenant;
let meetings: ReturnType<typeof createClient<typeof MeetingService>>;
let page: ReturnType<typeof createClient<typeof MeetingPageService>>;
const fixture = useStack();

beforeAll(async () => {
  [tenant, otherTenant] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
  const transport = createGrpcTransport({ baseUrl: fixture.stack.urls.meeting });
  meetings = createClient(MeetingService, transport);
  page = createClient(MeetingPageService, transport);
});

const as = (t: Tenant) => bearer(t.apiKey);

describe("MeetingService over gRPC (direct callers meet the same rules as REST ones)", () => {
  it("refuses invalid requests with one INVALID_ARGUMENT naming each field", async () => {
    const error = await refusal(meetings.createMeeting({ title: " ", start: "2025-01-01T10:00:00", attendees: ["nope"] }, as(tenant)));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(
      'title is required and must not be empty; start must include a UTC offset ("Z" or ±hh:mm), for example 2025-06-01T09:00:00.000Z; attendees must be e-mail addresses; not valid: "nope"',
    );
  });

  it("refuses a call without credential with UNAUTHENTICATED", async () => {
    expect((await refusal(meetings.createMeeting({ title: "t" }))).code).toBe(Code.Unauthenticated);
  });

  it("a plain @grpc/grpc-js client can create a meeting with an API key in the metadata", async () => {
    const client = grpcJsClient(fixture.stack.urls.meeting);
    try {
      const response = await client.unary(
        "/svc.meeting.v1.MeetingService/CreateMeeting",
        CreateMeetingRequestSchema,
        CreateMeetingResponseSchema,
        { title: "From grpc-js", attendees: ["a@example.com"] },
        { authorization: `Bearer ${tenant.apiKey}` },
      );
      expect(response.meeting).toMatchObject({ title: "From grpc-js", status: MeetingStatus.SCHEDULED, orgId: tenant.orgId, attendees: ["a@example.com"] });
      const refused = await client
        .unary(
          "/svc.meeting.v1.MeetingService/CreateMeeting",
          CreateMeetingRequestSchema,
          CreateMeetingResponseSchema,
          { title: "" },
          { authorization: `Bearer ${tenant.apiKey}` },
        )
        .catch((error: grpc.ServiceError) => error);
      expect((refused as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    } finally {
      client.close();
    }
  });

  it("ListMeetings pages through the caller's organization only, newest first", async () => {
    const titles = Array.from({ length: 7 }, (_, index) => `Listed ${index}`);
    for (const title of titles) await meetings.createMeeting({ title }, as(otherTenant));
    await meetings.createMeeting({ title: "Someone else's" }, as(tenant));

    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    do {
      const response = await meetings.listMeetings({ pageSize: 3, pageToken }, as(otherTenant));
      expect(response.meetings.length).toBeLessThanOrEqual(3);
      seen.push(...response.meetings.map((meeting) => meeting.title));
      pageToken = response.nextPageToken;
      pages += 1;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen).toEqual([...titles].reverse());
  });

  it("ListMeetings refuses a forged page token and a negative page size", async () => {
    expect((await refusal(meetings.listMeetings({ pageToken: "not-a-token" }, as(tenant)))).code).toBe(Code.InvalidArgument);
    expect((await refusal(meetings.listMeetings({ pageSize: -1 }, as(tenant)))).code).toBe(Code.InvalidArgument);
  });

  it("EndMeeting reports ended_now true once, then false", async () => {
    const { meeting } = await meetings.createMeeting({ title: "End me" }, as(tenant));
    const first = await meetings.endMeeting({ id: meeting!.id }, as(tenant));
    const second = await meetings.endMeeting({ id: meeting!.id }, as(tenant));
    expect([first.endedNow, second.endedNow]).toEqual([true, false]);
    expect(second.meeting!.status).toBe(MeetingStatus.ENDED);
    expect(second.meeting!.endedAt).toEqual(first.meeting!.endedAt);
  });
});

describe("MeetingPageService", () => {
  it("answers join info without a credential, with the attendee count but not the attendees", async () => {
    const { meeting } = await meetings.createMeeting({ title: "Open", attendees: ["a@example.com", "b@example.com"] }, as(tenant));
    const info = await page.getJoinInfo({ id: meeting!.id });
    expect(info).toMatchObject({ id: meeting!.id, title: "Open", status: MeetingStatus.SCHEDULED, attendeeCount: 2 });
    expect(JSON.stringify(info)).not.toContain("a@example.com");
  });

  it("NOT_FOUND for an unknown id", async () => {
    expect((await refusal(page.getJoinInfo({ id: "AAAAAAAAAAAAAAAAAAAAAA" }))).code).toBe(Code.NotFound);
  });
});
