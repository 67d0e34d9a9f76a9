import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { callerTable, createAuthenticator, createLogger, type Caller } from "@svc/platform";
import { TranscriptFileService, TranscriptService, TranscriptStatus } from "@svc/proto/svc/meeting/v1/transcript_pb";
import type { StoredMeeting, TranscriptionMode } from "../meeting-store.ts";
import type { StoredSegment, StoredTranscript } from "../transcript-store.ts";
import { DEFAULT_SETTINGS } from "../meeting-request.ts";
import { createAccessLinks } from "../recording/access-links.ts";
import type { TranscriptStore } from "../transcript-store.ts";
import { transcriptFileService, transcriptService } from "./transcript-service.ts";

// The handler rules of TranscriptService and TranscriptFileService over an in-memory transport:
// scopes, the admin role for deleting and for the organization's default, organization isolation,
// value rules and access links. The real worker, the database and REST are covered end to end in
// test/transcription/transcripts-api.test.ts.

const callers: Record<string, Caller> = {
  "key-a": { userId: "user-a", orgId: "org-a", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "member-a": { userId: "user-m", orgId: "org-a", kind: "api_key", role: "member", scopes: [], clientId: "" },
  "key-b": { userId: "user-b", orgId: "org-b", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "oauth-read": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["transcript.read"], clientId: "c" },
  "oauth-manage": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["transcript.manage"], clientId: "c" },
  "oauth-recording": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["recording.read", "recording.manage"], clientId: "c" },
};
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

const meeting: StoredMeeting = {
  id: "AAAAAAAAAAAAAAAAAAAAAA",
  orgId: "org-a",
  title: "Planning",
  start: null,
  end: null,
  status: "ended",
  attendees: ["ada@example.com"],
  hosts: [],
  settings: { ...DEFAULT_SETTINGS, recording: "auto", transcription: "on" },
  roomLocked: false,
  createdAt: new Date(),
  endedAt: new Date(),
  cancelledAt: null,
  createdByUserId: "user-a",
  createdByClientId: null,
  roomOpenedAt: new Date(),
};

const READY_ID = "0b8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69";
const PROCESSING_ID = "1c8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69";

function transcriptOf(overrides: Partial<StoredTranscript>): StoredTranscript {
  return {
    id: READY_ID,
    meetingId: meeting.id,
    orgId: "org-a",
    status: "ready",
    language: "en",
    errorCode: null,
    createdAt: new Date("2030-01-01T10:00:00Z"),
    completedAt: new Date("2030-01-01T10:01:00Z"),
    durationMs: 9_500,
    recordingId: null,
    speakers: [
      { displayName: "Ada", email: "ada@example.com" },
      { displayName: "Bob", email: null },
    ],
    ...overrides,
  };
}

function setUp() {
  const transcripts = [transcriptOf({}), transcriptOf({ id: PROCESSING_ID, status: "processing", completedAt: null, durationMs: null })];
  const segments: StoredSegment[] = [
    { speakerIndex: 0, startMs: 1_000, endMs: 3_000, text: "Hello Bob." },
    { speakerIndex: 1, startMs: 3_500, endMs: 9_500, text: "Hello Ada." },
  ];
  const defaults = new Map<string, TranscriptionMode>();
  const store: TranscriptStore = {
    meetingOfOrg: async (orgId, id) => (id === meeting.id && orgId === meeting.orgId ? meeting : undefined),
    transcriptOfOrg: async (orgId, id) => transcripts.find((transcript) => transcript.id === id && transcript.orgId === orgId),
    transcriptById: async (id) => transcripts.find((transcript) => transcript.id === id),
    transcriptsOfMeeting: async (meetingId) => transcripts.filter((transcript) => transcript.meetingId === meetingId),
    segmentsOf: async (id) => (id === READY_ID ? segments : []),
    deleteTranscript: async (id) => {
      const index = transcripts.findIndex((transcript) => transcript.id === id);
      if (index >= 0) transcripts.splice(index, 1);
      return index >= 0;
    },
    transcriptionDefaultOf: async (orgId) => defaults.get(orgId) ?? "off",
    setTranscriptionDefault: async (orgId, mode) => {
      defaults.set(orgId, mode);
      return mode;
    },
  };
  const links = createAccessLinks("handler-test-secret-at-least-32-characters", "transcript");
  const transport = createRouterTransport((router) => {
    router.service(
      TranscriptService,
      transcriptService({
        authenticate: createAuthenticator(callerTable(callers)),
        store,
        links,
        publicUrl: "https://meet.example.com",
        linkTtlSeconds: 3600,
        logger: createLogger("transcript-service-test", "silent"),
      }),
    );
    router.service(TranscriptFileService, transcriptFileService({ store, links }));
  });
  return { transcripts, client: createClient(TranscriptService, transport), files: createClient(TranscriptFileService, transport) };
}

const refusal = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call succeeded");
};

describe("TranscriptService and TranscriptFileService handlers", () => {
  it("lists a meeting's transcripts and reads one with its segments (segments only once ready)", async () => {
    const { client } = setUp();
    const list = await client.listTranscripts({ meetingId: meeting.id }, as("oauth-read"));
    expect(list.transcripts.map((transcript) => [transcript.id, transcript.status])).toEqual([
      [READY_ID, TranscriptStatus.READY],
      [PROCESSING_ID, TranscriptStatus.PROCESSING],
    ]);
    const ready = await client.getTranscript({ transcriptId: READY_ID }, as("key-a"));
    expect(ready.transcript?.speakers.map((speaker) => [speaker.displayName, speaker.email])).toEqual([
      ["Ada", "ada@example.com"],
      ["Bob", ""],
    ]);
    expect(ready.transcript?.durationSeconds).toBe(9.5);
    expect(ready.segments.map((segment) => [segment.speakerIndex, segment.startSeconds, segment.endSeconds, segment.text])).toEqual([
      [0, 1, 3, "Hello Bob."],
      [1, 3.5, 9.5, "Hello Ada."],
    ]);
    expect((await client.getTranscript({ transcriptId: PROCESSING_ID }, as("key-a"))).segments).toEqual([]);
  });

  it("needs transcript.read to read and transcript.manage to delete or set the default; recording scopes are not enough", async () => {
    const { client } = setUp();
    for (const call of [
      client.listTranscripts({ meetingId: meeting.id }, as("oauth-recording")),
      client.getTranscript({ transcriptId: READY_ID }, as("oauth-manage")),
      client.createTranscriptAccessLink({ transcriptId: READY_ID }, as("oauth-recording")),
      client.getTranscriptionSettings({}, as("oauth-recording")),
    ]) {
      const error = await refusal(call);
      expect(error.code).toBe(Code.PermissionDenied);
      expect(error.rawMessage).toBe("Insufficient scope: transcript.read");
    }
    for (const call of [
      client.deleteTranscript({ transcriptId: READY_ID }, as("oauth-read")),
      client.updateTranscriptionSettings({ defaultTranscription: "on" }, as("oauth-read")),
    ]) {
      const error = await refusal(call);
      expect(error.code).toBe(Code.PermissionDenied);
      expect(error.rawMessage).toBe("Insufficient scope: transcript.manage");
    }
  });

  it("another organization's meeting and transcripts do not exist for the caller", async () => {
    const { client, transcripts } = setUp();
    expect((await refusal(client.listTranscripts({ meetingId: meeting.id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.getTranscript({ transcriptId: READY_ID }, as("key-b")))).rawMessage).toBe("Transcript not found");
    expect((await refusal(client.createTranscriptAccessLink({ transcriptId: READY_ID }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.deleteTranscript({ transcriptId: READY_ID }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.getTranscript({ transcriptId: "not-a-uuid" }, as("key-a")))).code).toBe(Code.NotFound);
    expect(transcripts).toHaveLength(2);
  });

  it("deleting is for admins; a member's key is refused and nothing is deleted", async () => {
    const { client, transcripts } = setUp();
    expect((await refusal(client.deleteTranscript({ transcriptId: READY_ID }, as("member-a")))).code).toBe(Code.PermissionDenied);
    expect(transcripts).toHaveLength(2);
    await client.deleteTranscript({ transcriptId: READY_ID }, as("key-a"));
    expect(transcripts.map((transcript) => transcript.id)).toEqual([PROCESSING_ID]);
  });

  it("the organization's default: off until an admin sets it, per organization, off or on only", async () => {
    const { client } = setUp();
    expect((await client.getTranscriptionSettings({}, as("key-a"))).defaultTranscription).toBe("off");
    expect((await refusal(client.updateTranscriptionSettings({ defaultTranscription: "on" }, as("member-a")))).code).toBe(Code.PermissionDenied);
    const invalid = await refusal(client.updateTranscriptionSettings({ defaultTranscription: "auto" }, as("key-a")));
    expect(invalid.code).toBe(Code.InvalidArgument);
    expect(invalid.rawMessage).toContain("defaultTranscription must be off or on");
    expect((await client.updateTranscriptionSettings({ defaultTranscription: "on" }, as("oauth-manage"))).defaultTranscription).toBe("on");
    expect((await client.getTranscriptionSettings({}, as("key-a"))).defaultTranscription).toBe("on");
    expect((await client.getTranscriptionSettings({}, as("key-b"))).defaultTranscription).toBe("off");
  });

  it("an access link opens a ready transcript without a credential, until it expires; not for one still processing", async () => {
    const { client, files } = setUp();
    const link = await client.createTranscriptAccessLink({ transcriptId: READY_ID, expiresInSeconds: 60 }, as("oauth-read"));
    expect(link.webvttLink).toBe(`https://meet.example.com/api/v1/transcript-downloads/${link.token}/transcript.vtt`);
    expect(link.jsonLink).toBe(`https://meet.example.com/api/v1/transcript-downloads/${link.token}/transcript.json`);
    const file = await files.readTranscriptFile({ token: link.token });
    expect(file.transcript?.id).toBe(READY_ID);
    expect(file.segments.map((segment) => segment.text)).toEqual(["Hello Bob.", "Hello Ada."]);
    expect((await refusal(files.readTranscriptFile({ token: `${link.token}x` }))).code).toBe(Code.PermissionDenied);
    expect((await refusal(client.createTranscriptAccessLink({ transcriptId: PROCESSING_ID }, as("key-a")))).code).toBe(Code.FailedPrecondition);
    expect((await refusal(client.createTranscriptAccessLink({ transcriptId: READY_ID, expiresInSeconds: 604_801 }, as("key-a")))).code).toBe(
      Code.InvalidArgument,
    );
    const recordingLink = createAccessLinks("handler-test-secret-at-least-32-characters").issue(READY_ID, new Date(Date.now() + 60_000));
    expect((await refusal(files.readTranscriptFile({ token: recordingLink }))).code).toBe(Code.PermissionDenied);
  });
});
