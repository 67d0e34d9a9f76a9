import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, type Authenticate, type Logger } from "@svc/platform";
import { transcriptionFailureMessages, UUID } from "@svc/platform/contract";
import type { TranscriptFileService, TranscriptSchema, TranscriptSegmentSchema, TranscriptService } from "@svc/proto/svc/meeting/v1/transcript_pb";
import type { TranscriptionMode } from "../meeting-store.ts";
import { isMeetingId } from "../meeting-id.ts";
import { TRANSCRIPTION_MODES } from "../meeting-request.ts";
import { linkExpiry, linkRefusal, type AccessLinks } from "../recording/access-links.ts";
import type { StoredSegment, StoredTranscript, TranscriptStore } from "../transcript-store.ts";
import { markIfCancelled } from "./cancelled-reads.ts";
import { transcriptStatusWords } from "./enum-words.ts";

/** OAuth scopes of the transcript operations; API keys and dashboard sessions need none. */
export const transcriptScopes = { read: "transcript.read", manage: "transcript.manage" } as const;

const isTranscriptId = (value: string) => UUID.test(value);

export function transcriptToProto(transcript: StoredTranscript): MessageInitShape<typeof TranscriptSchema> {
  return {
    id: transcript.id,
    meetingId: transcript.meetingId,
    status: transcriptStatusWords.valueOf(transcript.status),
    language: transcript.language,
    createdAt: timestampFromDate(transcript.createdAt),
    completedAt: transcript.completedAt ? timestampFromDate(transcript.completedAt) : undefined,
    durationSeconds: transcript.durationMs === null ? undefined : transcript.durationMs / 1_000,
    speakers: transcript.speakers.map((speaker) => ({ displayName: speaker.displayName, email: speaker.email ?? "" })),
    error: transcript.errorCode ? transcriptionFailureMessages[transcript.errorCode] : "",
    errorCode: transcript.errorCode ?? "",
    recordingId: transcript.recordingId ?? "",
  };
}

const segmentToProto = (segment: StoredSegment): MessageInitShape<typeof TranscriptSegmentSchema> => ({
  speakerIndex: segment.speakerIndex,
  startSeconds: segment.startMs / 1_000,
  endSeconds: segment.endMs / 1_000,
  text: segment.text,
});

/** A transcription mode as a request names it. */
function transcriptionModeOf(value: string): TranscriptionMode {
  if (TRANSCRIPTION_MODES.includes(value)) return value as TranscriptionMode;
  throw invalidArgument(["defaultTranscription must be off or on"]);
}

export interface TranscriptServiceDependencies {
  authenticate: Authenticate;
  store: TranscriptStore;
  links: AccessLinks;
  /** The gateway's public origin: links are `${publicUrl}/api/v1/transcript-downloads/<token>/transcript.vtt` (and `.json`). */
  publicUrl: string;
  linkTtlSeconds: number;
  logger: Logger;
}

export const transcriptDownloadPath = (token: string, format: "vtt" | "json") => `/api/v1/transcript-downloads/${token}/transcript.${format}`;

/**
 * svc.meeting.v1.TranscriptService: transcripts of the caller's organization's meetings and the
 * organization's transcription default. Every call authenticates the caller and checks its scope
 * first; another organization's meeting or transcript does not exist for the caller (NOT_FOUND).
 */
export function transcriptService(deps: TranscriptServiceDependencies): ServiceImpl<typeof TranscriptService> {
  const { authenticate, store } = deps;

  async function transcriptOfCaller(orgId: string, transcriptId: string): Promise<StoredTranscript> {
    const transcript = isTranscriptId(transcriptId) ? await store.transcriptOfOrg(orgId, transcriptId) : undefined;
    if (!transcript) throw notFound("Transcript");
    return transcript;
  }

  return {
    async listTranscripts(request, context) {
      const caller = await authenticate(context, transcriptScopes.read);
      const meeting = isMeetingId(request.meetingId) ? await store.meetingOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      markIfCancelled(meeting, context);
      return { transcripts: (await store.transcriptsOfMeeting(meeting.id)).map(transcriptToProto) };
    },

    async getTranscript(request, context) {
      const caller = await authenticate(context, transcriptScopes.read);
      const transcript = await transcriptOfCaller(caller.orgId, request.transcriptId);
      const segments = transcript.status === "ready" ? await store.segmentsOf(transcript.id) : [];
      return { transcript: transcriptToProto(transcript), segments: segments.map(segmentToProto) };
    },

    async createTranscriptAccessLink(request, context) {
      const caller = await authenticate(context, transcriptScopes.read);
      const transcript = await transcriptOfCaller(caller.orgId, request.transcriptId);
      if (transcript.status !== "ready")
        throw new ConnectError(`The transcript is ${transcript.status}: only a ready transcript can be downloaded`, Code.FailedPrecondition);
      if (!deps.links.enabled)
        throw new ConnectError("Transcript downloads are not configured: the operator must set RECORDING_LINK_SECRET", Code.FailedPrecondition);
      const expiresAt = linkExpiry(request.expiresInSeconds, deps.linkTtlSeconds);
      const token = deps.links.issue(transcript.id, expiresAt);
      return {
        token,
        webvttLink: `${deps.publicUrl}${transcriptDownloadPath(token, "vtt")}`,
        jsonLink: `${deps.publicUrl}${transcriptDownloadPath(token, "json")}`,
        expiresAt: timestampFromDate(expiresAt),
      };
    },

    async deleteTranscript(request, context) {
      // Admins only, as recordings: a transcript is a record of what people said; members may read, not destroy it.
      const caller = await authenticate(context, transcriptScopes.manage, { adminOnly: true });
      const transcript = await transcriptOfCaller(caller.orgId, request.transcriptId);
      if (!(await store.deleteTranscript(transcript.id))) throw notFound("Transcript");
      deps.logger.info({ transcriptId: transcript.id, meetingId: transcript.meetingId, userId: caller.userId }, "transcript deleted");
      return {};
    },

    async getTranscriptionSettings(_request, context) {
      const caller = await authenticate(context, transcriptScopes.read);
      return { defaultTranscription: await store.transcriptionDefaultOf(caller.orgId) };
    },

    async updateTranscriptionSettings(request, context) {
      const caller = await authenticate(context, transcriptScopes.manage, { adminOnly: true });
      const mode = transcriptionModeOf(request.defaultTranscription);
      const stored = await store.setTranscriptionDefault(caller.orgId, mode);
      deps.logger.info({ orgId: caller.orgId, userId: caller.userId, defaultTranscription: stored }, "transcription default changed");
      return { defaultTranscription: stored };
    },
  };
}

/**
 * svc.meeting.v1.TranscriptFileService: a ready transcript, for whoever holds a valid access link
 * (the gateway serves it as WebVTT or JSON).
 */
export function transcriptFileService(deps: {
  store: Pick<TranscriptStore, "transcriptById" | "segmentsOf">;
  links: AccessLinks;
}): ServiceImpl<typeof TranscriptFileService> {
  return {
    async readTranscriptFile(request) {
      const verified = deps.links.verify(request.token);
      if (!verified.ok) throw linkRefusal(verified.problem);
      const transcript = await deps.store.transcriptById(verified.id);
      if (!transcript || transcript.status !== "ready") throw notFound("Transcript");
      return { transcript: transcriptToProto(transcript), segments: (await deps.store.segmentsOf(transcript.id)).map(segmentToProto) };
    },
  };
}
