import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerTable, createAuthenticator, createLogger, type Caller } from "@svc/platform";
import { RecordingFileService, RecordingService, RecordingStatus } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { StoredMeeting } from "../meeting-store.ts";
import type { StoredRecording, RecordingStore } from "../recording-store.ts";
import { DEFAULT_SETTINGS } from "../meeting-request.ts";
import { createAccessLinks } from "../recording/access-links.ts";
import { filesystemRecordingStorage } from "../recording/recording-storage-filesystem.ts";
import { recordingFileService, recordingService } from "./recording-service.ts";

// The handler rules of RecordingService and RecordingFileService over an in-memory transport:
// scopes, the admin role for deleting, organization isolation, value rules, access links and
// ranged reads of a real file. Starting and stopping a real recorder (LiveKit Egress), the events
// and the watchdog are covered end to end under test/recording/.

const callers: Record<string, Caller> = {
  "key-a": { userId: "user-a", orgId: "org-a", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "member-a": { userId: "user-m", orgId: "org-a", kind: "api_key", role: "member", scopes: [], clientId: "" },
  "key-b": { userId: "user-b", orgId: "org-b", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "oauth-read": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["recording.read"], clientId: "c" },
  "oauth-manage": { userId: "user-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["recording.manage"], clientId: "c" },
};
const resolveCaller = callerTable(callers);
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

const meeting: StoredMeeting = {
  id: "AAAAAAAAAAAAAAAAAAAAAA",
  orgId: "org-a",
  title: "Planning",
  start: null,
  end: null,
  status: "live",
  attendees: [],
  hosts: [],
  settings: { ...DEFAULT_SETTINGS, recording: "manual" },
  roomLocked: false,
  createdAt: new Date(),
  endedAt: null,
  cancelledAt: null,
  createdByUserId: "user-a",
  createdByClientId: null,
  roomOpenedAt: new Date(),
};

const FILE_BYTES = Buffer.from(Array.from({ length: 200_000 }, (_, index) => index % 251));

function recordingOf(overrides: Partial<StoredRecording>): StoredRecording {
  return {
    id: "0b8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69",
    meetingId: meeting.id,
    orgId: "org-a",
    egressId: "EG_test",
    layout: "grid",
    status: "ready",
    startedBy: "api",
    storage: "filesystem",
    objectKey: "0b8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69.mp4",
    startedAt: new Date("2030-01-01T10:00:00Z"),
    capturing: true,
    endedAt: new Date("2030-01-01T10:00:20Z"),
    durationMs: 20_000,
    sizeBytes: FILE_BYTES.length,
    error: null,
    errorCode: null,
    missingSince: null,
    ...overrides,
  };
}

describe("RecordingService and RecordingFileService handlers", () => {
  let dir: string;
  const recordings: StoredRecording[] = [];
  const started: string[] = [];
  const links = createAccessLinks("handler-test-secret-at-least-32-characters");
  let client: ReturnType<typeof createClient<typeof RecordingService>>;
  let files: ReturnType<typeof createClient<typeof RecordingFileService>>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "svc-recording-handlers-"));
    const ready = recordingOf({});
    await writeFile(path.join(dir, ready.objectKey), FILE_BYTES);
    recordings.push(ready, recordingOf({ id: "1c8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69", objectKey: "x.mp4", status: "recording", endedAt: null }));
    const storage = filesystemRecordingStorage({ dir, egressDir: dir });
    const store: RecordingStore = {
      meetingOfOrg: async (orgId, id) => (id === meeting.id && orgId === meeting.orgId ? meeting : undefined),
      recordingOfOrg: async (orgId, id) => recordings.find((recording) => recording.id === id && recording.orgId === orgId),
      recordingById: async (id) => recordings.find((recording) => recording.id === id),
      recordingsOfMeeting: async (meetingId) => recordings.filter((recording) => recording.meetingId === meetingId),
    };
    const transport = createRouterTransport((router) => {
      router.service(
        RecordingService,
        recordingService({
          authenticate: createAuthenticator(resolveCaller),
          store,
          // The recorder is not here: starting records which meeting and layout was asked.
          recordings: {
            start: async (target, layout) => {
              started.push(`${target.id}/${layout}`);
              return recordingOf({ id: "2c8f6a53-7d4e-4c3b-9a8e-3f0d2c1b5a69", status: "recording", layout, endedAt: null, durationMs: null, sizeBytes: null });
            },
            stop: async (recording) => ({ ...recording, status: "processing" }),
            remove: async (recording) => void recordings.splice(recordings.indexOf(recording), 1),
          },
          links,
          publicUrl: "https://meet.example.com",
          linkTtlSeconds: 3600,
          logger: createLogger("recording-service-test", "silent"),
        }),
      );
      router.service(RecordingFileService, recordingFileService({ store, links, storage }));
    });
    client = createClient(RecordingService, transport);
    files = createClient(RecordingFileService, transport);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  async function refusal(call: Promise<unknown>): Promise<ConnectError> {
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConnectError);
    return error as ConnectError;
  }

  async function download(token: string, range = "") {
    const parts = [];
    for await (const part of files.readRecordingFile({ token, range })) parts.push(part.part);
    const head = parts[0]?.case === "head" ? parts[0].value : undefined;
    const body = Buffer.concat(parts.flatMap((part) => (part.case === "chunk" ? [Buffer.from(part.value)] : [])));
    return { head, body };
  }

  it("starts a recording of the caller's meeting with the asked layout, and refuses a bad layout", async () => {
    const { recording } = await client.startRecording({ meetingId: meeting.id, layout: "audio" }, as("key-a"));
    expect(recording).toMatchObject({ status: RecordingStatus.RECORDING, layout: "audio", meetingId: meeting.id });
    expect(started).toContain(`${meeting.id}/audio`);
    await client.startRecording({ meetingId: meeting.id, layout: "" }, as("key-a"));
    expect(started.at(-1)).toBe(`${meeting.id}/grid`);
    expect((await refusal(client.startRecording({ meetingId: meeting.id, layout: "video" }, as("key-a")))).code).toBe(Code.InvalidArgument);
  });

  it("checks the OAuth scopes: recording.manage to start, stop and delete, recording.read to list, get and link", async () => {
    const readOnly = await refusal(client.startRecording({ meetingId: meeting.id, layout: "grid" }, as("oauth-read")));
    expect(readOnly.code).toBe(Code.PermissionDenied);
    expect(readOnly.rawMessage).toBe("Insufficient scope: recording.manage");
    const manageOnly = await refusal(client.listRecordings({ meetingId: meeting.id }, as("oauth-manage")));
    expect(manageOnly.rawMessage).toBe("Insufficient scope: recording.read");
    expect((await client.listRecordings({ meetingId: meeting.id }, as("oauth-read"))).recordings.length).toBe(2);
    expect((await client.stopRecording({ recordingId: recordings[1]!.id }, as("oauth-manage"))).recording?.status).toBe(RecordingStatus.PROCESSING);
  });

  it("answers another organization's meeting and recording as not found", async () => {
    expect((await refusal(client.listRecordings({ meetingId: meeting.id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.startRecording({ meetingId: meeting.id, layout: "grid" }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.getRecording({ recordingId: recordings[0]!.id }, as("key-b")))).rawMessage).toBe("Recording not found");
    expect((await refusal(client.createRecordingAccessLink({ recordingId: recordings[0]!.id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.deleteRecording({ recordingId: recordings[0]!.id }, as("key-b")))).code).toBe(Code.NotFound);
    expect((await refusal(client.getRecording({ recordingId: "not-a-uuid" }, as("key-a")))).code).toBe(Code.NotFound);
  });

  it("gives an access link only for a ready recording, within 1 s to 7 days", async () => {
    expect((await refusal(client.createRecordingAccessLink({ recordingId: recordings[1]!.id }, as("key-a")))).code).toBe(Code.FailedPrecondition);
    expect((await refusal(client.createRecordingAccessLink({ recordingId: recordings[0]!.id, expiresInSeconds: 604_801 }, as("key-a")))).code).toBe(
      Code.InvalidArgument,
    );
    const link = await client.createRecordingAccessLink({ recordingId: recordings[0]!.id, expiresInSeconds: 120 }, as("oauth-read"));
    expect(link.downloadLink).toBe(`https://meet.example.com/api/v1/recording-downloads/${link.token}`);
    const expiresIn = Number(link.expiresAt!.seconds) * 1000 - Date.now();
    expect(expiresIn).toBeGreaterThan(110_000);
    expect(expiresIn).toBeLessThanOrEqual(120_000);
  });

  it("serves the file to a link holder, whole or in the asked range", async () => {
    const { token } = await client.createRecordingAccessLink({ recordingId: recordings[0]!.id }, as("key-a"));
    const whole = await download(token);
    expect(whole.head).toMatchObject({ partial: false, contentType: "video/mp4", sizeBytes: BigInt(FILE_BYTES.length), firstByte: 0n });
    expect(whole.body.equals(FILE_BYTES)).toBe(true);
    const part = await download(token, "bytes=100000-100099");
    expect(part.head).toMatchObject({ partial: true, firstByte: 100_000n, lastByte: 100_099n });
    expect(part.body.equals(FILE_BYTES.subarray(100_000, 100_100))).toBe(true);
    const outside = await refusal(download(token, `bytes=${FILE_BYTES.length}-`));
    expect(outside.code).toBe(Code.OutOfRange);
    expect(outside.metadata.get("x-size")).toBe(String(FILE_BYTES.length));
  });

  it("refuses an expired or forged link", async () => {
    const expired = links.issue(recordings[0]!.id, new Date(Date.now() - 1_000));
    expect((await refusal(download(expired))).rawMessage).toBe("This download link has expired");
    const forged = createAccessLinks("another-secret-that-is-at-least-32-characters").issue(recordings[0]!.id, new Date(Date.now() + 60_000));
    expect((await refusal(download(forged))).code).toBe(Code.PermissionDenied);
  });

  it("lets only admins delete a recording", async () => {
    const target = recordings[0]!;
    const member = await refusal(client.deleteRecording({ recordingId: target.id }, as("member-a")));
    expect(member.code).toBe(Code.PermissionDenied);
    await client.deleteRecording({ recordingId: target.id }, as("key-a"));
    expect(recordings).not.toContain(target);
    expect((await refusal(client.getRecording({ recordingId: target.id }, as("key-a")))).code).toBe(Code.NotFound);
  });
});
