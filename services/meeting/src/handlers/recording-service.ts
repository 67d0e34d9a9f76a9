import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, type Authenticate, type Logger } from "@svc/platform";
import { errorMetadata, UUID } from "@svc/platform/contract";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { RecordingFileService, RecordingSchema, RecordingService } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { RecordingLayout, StoredRecording, RecordingStore } from "../recording-store.ts";
import { isMeetingId } from "../meeting-id.ts";
import { markIfCancelled } from "./cancelled-reads.ts";
import { recordingStatusWords } from "./enum-words.ts";
import { linkExpiry, linkRefusal, type AccessLinks } from "../recording/access-links.ts";
import { byteRangeOf } from "../recording/byte-range.ts";
import type { Recordings } from "../recording/recordings.ts";
import type { RecordingStorage } from "../recording/recording-storage.ts";

/** OAuth scopes of the recording operations; API keys and dashboard sessions need none. */
export const recordingScopes = { read: "recording.read", manage: "recording.manage" } as const;

const CHUNK_BYTES = 64 * 1024;
const isRecordingId = (value: string) => UUID.test(value);

export function recordingToProto(recording: StoredRecording): MessageInitShape<typeof RecordingSchema> {
  return {
    id: recording.id,
    meetingId: recording.meetingId,
    status: recordingStatusWords.valueOf(recording.status),
    layout: recording.layout,
    startedAt: timestampFromDate(recording.startedAt),
    endedAt: recording.endedAt ? timestampFromDate(recording.endedAt) : undefined,
    durationSeconds: recording.durationMs === null ? undefined : recording.durationMs / 1_000,
    sizeBytes: recording.sizeBytes === null ? undefined : BigInt(recording.sizeBytes),
    error: recording.error ?? "",
    errorCode: recording.errorCode ?? "",
    startedBy: recording.startedBy,
    capturing: recording.capturing,
  };
}

/** A layout as a request names it: empty is the default, grid. */
export function layoutOf(value: string): RecordingLayout {
  if (value === "" || value === "grid") return "grid";
  if (value === "audio") return "audio";
  throw invalidArgument(["layout must be grid or audio"]);
}

export interface RecordingServiceDependencies {
  authenticate: Authenticate;
  store: RecordingStore;
  recordings: Pick<Recordings, "start" | "stop" | "remove">;
  links: AccessLinks;
  /** The gateway's public origin: download links are `${publicUrl}/api/v1/recording-downloads/<token>`. */
  publicUrl: string;
  linkTtlSeconds: number;
  logger: Logger;
}

export const downloadPath = (token: string) => `/api/v1/recording-downloads/${token}`;

/**
 * svc.meeting.v1.RecordingService: recordings of the caller's organization's meetings. Every call
 * authenticates the caller and checks its scope first; another organization's meeting or
 * recording does not exist for the caller (NOT_FOUND).
 */
export function recordingService(deps: RecordingServiceDependencies): ServiceImpl<typeof RecordingService> {
  const { authenticate, store } = deps;

  async function recordingOfCaller(orgId: string, recordingId: string): Promise<StoredRecording> {
    const recording = isRecordingId(recordingId) ? await store.recordingOfOrg(orgId, recordingId) : undefined;
    if (!recording) throw notFound("Recording");
    return recording;
  }

  return {
    async startRecording(request, context) {
      const caller = await authenticate(context, recordingScopes.manage);
      const layout = layoutOf(request.layout);
      const meeting = isMeetingId(request.meetingId) ? await store.meetingOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      return { recording: recordingToProto(await deps.recordings.start(meeting, layout, "api")) };
    },

    async stopRecording(request, context) {
      const caller = await authenticate(context, recordingScopes.manage);
      const recording = await recordingOfCaller(caller.orgId, request.recordingId);
      return { recording: recordingToProto(await deps.recordings.stop(recording)) };
    },

    async listRecordings(request, context) {
      const caller = await authenticate(context, recordingScopes.read);
      const meeting = isMeetingId(request.meetingId) ? await store.meetingOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      markIfCancelled(meeting, context);
      return { recordings: (await store.recordingsOfMeeting(meeting.id)).map(recordingToProto) };
    },

    async getRecording(request, context) {
      const caller = await authenticate(context, recordingScopes.read);
      return { recording: recordingToProto(await recordingOfCaller(caller.orgId, request.recordingId)) };
    },

    async createRecordingAccessLink(request, context) {
      const caller = await authenticate(context, recordingScopes.read);
      const recording = await recordingOfCaller(caller.orgId, request.recordingId);
      if (recording.status !== "ready")
        throw new ConnectError(`The recording is ${recording.status}: only a ready recording can be downloaded`, Code.FailedPrecondition);
      if (!deps.links.enabled)
        throw new ConnectError("Recording downloads are not configured: the operator must set RECORDING_LINK_SECRET", Code.FailedPrecondition);
      const expiresAt = linkExpiry(request.expiresInSeconds, deps.linkTtlSeconds);
      const token = deps.links.issue(recording.id, expiresAt);
      return { token, downloadLink: `${deps.publicUrl}${downloadPath(token)}`, expiresAt: timestampFromDate(expiresAt) };
    },

    async deleteRecording(request, context) {
      // Admins only: a recording is a record of what people said; members may watch, not destroy it.
      const caller = await authenticate(context, recordingScopes.manage, { adminOnly: true });
      const recording = await recordingOfCaller(caller.orgId, request.recordingId);
      await deps.recordings.remove(recording);
      deps.logger.info({ recordingId: recording.id, meetingId: recording.meetingId, userId: caller.userId }, "recording deleted");
      return {};
    },
  };
}

/**
 * svc.meeting.v1.RecordingFileService: the file of a ready recording, for whoever holds a valid
 * access link (docs/decisions/0016-recording-downloads-through-the-meeting-service.md). The head
 * says what is served (the whole file or the asked range); the bytes follow in chunks.
 */
export function recordingFileService(deps: {
  store: Pick<RecordingStore, "recordingById">;
  links: AccessLinks;
  storage: RecordingStorage;
}): ServiceImpl<typeof RecordingFileService> {
  return {
    async *readRecordingFile(request) {
      const verified = deps.links.verify(request.token);
      if (!verified.ok) throw linkRefusal(verified.problem);
      const recording = await deps.store.recordingById(verified.id);
      if (!recording || recording.status !== "ready") throw notFound("Recording");
      const size = await deps.storage.size(recording.objectKey);
      if (size === undefined) throw new ConnectError("The recording's file is missing from storage", Code.NotFound);
      const range = byteRangeOf(request.range, size);
      if (range.kind === "unsatisfiable")
        throw new ConnectError("The requested range is not in the file", Code.OutOfRange, { [errorMetadata.fileSize]: String(size) });
      const served = range.kind === "partial" ? range.range : { start: 0, end: size - 1 };
      yield {
        part: {
          case: "head",
          value: {
            sizeBytes: BigInt(size),
            contentType: recording.layout === "audio" ? "audio/mp4" : "video/mp4",
            partial: range.kind === "partial",
            firstByte: BigInt(served.start),
            lastByte: BigInt(served.end),
            filename: `recording-${recording.startedAt.toISOString().slice(0, 19).replace(/:/g, "-")}-${recording.id.slice(0, 8)}.mp4`,
          },
        },
      };
      if (size === 0) return;
      const stream = await deps.storage.read(recording.objectKey, served);
      let pending: Buffer = Buffer.alloc(0);
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        while (pending.length >= CHUNK_BYTES) {
          yield { part: { case: "chunk", value: pending.subarray(0, CHUNK_BYTES) } };
          pending = pending.subarray(CHUNK_BYTES);
        }
      }
      if (pending.length > 0) yield { part: { case: "chunk", value: pending } };
    },
  };
}
