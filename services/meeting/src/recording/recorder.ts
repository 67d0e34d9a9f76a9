import {
  EgressClient,
  EgressStatus,
  EncodingOptionsPreset,
  ServerError,
  TrackSource,
  TrackType,
  type DirectFileOutput,
  type EgressInfo,
  type EncodedFileOutput,
  type RoomServiceClient,
} from "livekit-server-sdk";
import type { RecordingFailureCode } from "@svc/platform/contract";
import type { RecordingLayout } from "../recording-store.ts";

/** LiveKit's participant kind of a recorder (ParticipantInfo.Kind.EGRESS; the SDK does not export the enum). */
export const EGRESS_PARTICIPANT_KIND = 2;

/** The recorder refused or did not answer: no capacity now, or it is down. Worth retrying later. */
export class RecorderUnavailable extends Error {}
/** The meeting's media room does not exist (nobody is in it). */
export class RoomNotOpen extends Error {}

/** How a recorder's run ended, from its EgressInfo. */
export type RecorderOutcome =
  | { state: "running" }
  | { state: "complete"; startedAt: Date | null; endedAt: Date; durationMs: number; sizeBytes: number }
  /**
   * `code` is what the tenant reads (with our words for it, recording-failures.ts); `detail` is
   * the recorder's own text, which can name our storage, paths and credentials' failures: for our
   * logs only.
   */
  | { state: "failed"; code: RecordingFailureCode; detail?: string };

/** The recorder accepted the run but is not recording yet (a room recording loads a page and joins the room first). */
export const isStarting = (info: EgressInfo) => info.status === EgressStatus.EGRESS_STARTING;

const nanosToMs = (nanos: bigint) => Number(nanos / 1_000_000n);
const dateOfNanos = (nanos: bigint) => (nanos > 0n ? new Date(nanosToMs(nanos)) : null);

/**
 * When the recorder began capturing, once it reports the run active: its own start time
 * (EgressInfo.startedAt, set as its pipeline starts writing), else the moment we hear it.
 * Undefined while it is still starting (a room recording loads a page and joins the room first).
 */
export function captureStart(info: EgressInfo): Date | undefined {
  if (info.status !== EgressStatus.EGRESS_ACTIVE) return undefined;
  return dateOfNanos(info.startedAt) ?? new Date();
}

/**
 * How Egress words a failed upload of the file or its manifest to the storage (its
 * errors.ErrUploadFailed: "S3 upload failed: …"): its EgressInfo has no code that tells an
 * upload apart from the rest (both are EGRESS_FAILED), only this text.
 */
const UPLOAD_FAILED = /^(S3|Azure|GCP|AliOSS) upload failed: /m;

/** What an EgressInfo (from a webhook or the API) says about the run. */
export function outcomeOf(info: EgressInfo): RecorderOutcome {
  if (info.status === EgressStatus.EGRESS_STARTING || info.status === EgressStatus.EGRESS_ACTIVE || info.status === EgressStatus.EGRESS_ENDING)
    return { state: "running" };
  const file = info.fileResults[0];
  // LIMIT_REACHED ends a run at the recorder's time limit with its file complete.
  if ((info.status === EgressStatus.EGRESS_COMPLETE || info.status === EgressStatus.EGRESS_LIMIT_REACHED) && file && file.size > 0n) {
    const startedAt = dateOfNanos(file.startedAt);
    const endedAt = dateOfNanos(file.endedAt) ?? new Date();
    return { state: "complete", startedAt, endedAt, durationMs: nanosToMs(file.duration), sizeBytes: Number(file.size) };
  }
  if (info.status === EgressStatus.EGRESS_COMPLETE || info.status === EgressStatus.EGRESS_LIMIT_REACHED)
    return { state: "failed", code: "nothing_recorded", detail: info.error || undefined };
  const detail = info.error || undefined;
  if (info.status === EgressStatus.EGRESS_ABORTED) return { state: "failed", code: "recorder_aborted", detail };
  return { state: "failed", code: UPLOAD_FAILED.test(info.error) ? "storage_failed" : "recorder_failed", detail };
}

/** A person's microphone in the room, as a speaker track is taken from it. */
export interface MicrophoneTrack {
  participantId: string;
  displayName: string;
  trackSid: string;
}

/** A track a speaker track is made of: audio from a microphone (not a shared screen's sound). */
export const isMicrophone = (track: { type: TrackType; source: TrackSource }) => track.type === TrackType.AUDIO && track.source === TrackSource.MICROPHONE;

const isNotFound = (error: unknown) => error instanceof ServerError && (error.status === 404 || error.code === "not_found");

/**
 * The recorder: LiveKit Egress, reached through livekit-server's Egress API (they share Redis).
 * A meeting is recorded as a room composite of its LiveKit room: `grid` is the whole room
 * (H.264 720p30 + AAC), `audio` its audio only. Starting has a short timeout of its own: egress
 * without capacity does not answer, and a caller must hear "try later", not wait.
 */
export function createRecorder(options: { apiUrl: string; apiKey: string; apiSecret: string; startTimeoutSeconds: number; rooms: RoomServiceClient }) {
  const starting = new EgressClient(options.apiUrl, options.apiKey, options.apiSecret, { requestTimeout: options.startTimeoutSeconds });
  const egress = new EgressClient(options.apiUrl, options.apiKey, options.apiSecret, { requestTimeout: 10 });

  return {
    async start(meetingId: string, layout: RecordingLayout, output: EncodedFileOutput): Promise<string> {
      let info: EgressInfo;
      try {
        info =
          layout === "audio"
            ? await starting.startRoomCompositeEgress(meetingId, output, { audioOnly: true })
            : await starting.startRoomCompositeEgress(meetingId, output, { layout: "grid", encodingOptions: EncodingOptionsPreset.H264_720P_30 });
      } catch (error) {
        if (isNotFound(error)) throw new RoomNotOpen("The meeting's room is not open on the media server");
        const reason = error instanceof Error ? error.message : String(error);
        throw new RecorderUnavailable(reason);
      }
      if (info.status !== EgressStatus.EGRESS_STARTING && info.status !== EgressStatus.EGRESS_ACTIVE)
        throw new RecorderUnavailable(info.error || "the recorder did not start");
      return info.egressId;
    },

    /** Starts writing one track of the meeting's room as it comes (a speaker's microphone: Opus in OGG). */
    async startTrack(meetingId: string, trackSid: string, output: DirectFileOutput): Promise<string> {
      let info: EgressInfo;
      try {
        info = await starting.startTrackEgress(meetingId, output, trackSid);
      } catch (error) {
        if (isNotFound(error)) throw new RoomNotOpen("The meeting's room or the track is not on the media server");
        throw new RecorderUnavailable(error instanceof Error ? error.message : String(error));
      }
      if (info.status !== EgressStatus.EGRESS_STARTING && info.status !== EgressStatus.EGRESS_ACTIVE)
        throw new RecorderUnavailable(info.error || "the recorder did not start the track");
      return info.egressId;
    },

    /** The published microphone tracks of the people in the meeting's room (recorders left out); empty when the room is gone. */
    async microphoneTracks(meetingId: string): Promise<MicrophoneTrack[]> {
      try {
        const participants = await options.rooms.listParticipants(meetingId);
        return participants
          .filter((participant) => participant.kind !== EGRESS_PARTICIPANT_KIND)
          .flatMap((participant) =>
            participant.tracks
              .filter(isMicrophone)
              .map((track) => ({ participantId: participant.identity, displayName: participant.name || participant.identity, trackSid: track.sid })),
          );
      } catch (error) {
        if (isNotFound(error)) return [];
        throw error;
      }
    },

    /** Asks the recorder to stop (it finishes the file); nothing when it has already ended. */
    async stop(egressId: string): Promise<void> {
      try {
        await egress.stopEgress(egressId);
      } catch (error) {
        // An ended run cannot be stopped: LiveKit answers failed_precondition or not found.
        if (isNotFound(error) || (error instanceof ServerError && error.code === "failed_precondition")) return;
        throw error;
      }
    },

    /** The run as livekit-server knows it; undefined when it knows none by that id. */
    async info(egressId: string): Promise<EgressInfo | undefined> {
      const [info] = await egress.listEgress({ egressId });
      return info;
    },

    /** Whether the recorder is a participant of the meeting's room; undefined when the room is gone. */
    async inRoom(meetingId: string, egressId: string): Promise<boolean | undefined> {
      try {
        const participants = await options.rooms.listParticipants(meetingId);
        // A room composite recorder joins the room as a hidden participant named after its run.
        return participants.some((participant) => participant.identity === egressId);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}

export type Recorder = ReturnType<typeof createRecorder>;
