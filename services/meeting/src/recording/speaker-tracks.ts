import { randomUUID } from "node:crypto";
import type { EgressInfo } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";
import { inTransaction, type Pool } from "@svc/platform/db";
import { getMeeting } from "../db/meetings.ts";
import {
  claimTrack,
  markTrackCapturing,
  markTrackEnded,
  releaseTrack,
  setTrackEgress,
  trackByEgress,
  tracksOf,
  tracksOutlivingRecordings,
} from "../db/recording-tracks.ts";
import { activeRecordingOf, recordingById } from "../db/recordings.ts";
import type { StoredRecording, StoredTrack } from "../recording-store.ts";
import { personOf } from "../db/room-participants.ts";
import { insertTranscript } from "../db/transcription-jobs.ts";
import { captureStart, isMicrophone, outcomeOf, type MicrophoneTrack, type Recorder } from "./recorder.ts";
import type { RecordingStorage } from "./recording-storage.ts";

export interface SpeakerTracksDependencies {
  pool: Pool;
  recorder: Pick<Recorder, "startTrack" | "microphoneTracks" | "stop" | "info">;
  storage: RecordingStorage;
  logger: Logger;
}

/** A track as a LiveKit `track_published` webhook describes it. */
export interface PublishedTrack {
  participant: { identity: string; name: string };
  track: Parameters<typeof isMicrophone>[0] & { sid: string };
}

/**
 * Each speaker's own audio beside a recording of a meeting whose `transcription` is on
 * (docs/transcription.md, "Speaker tracks"): when the recording begins capturing, one track egress
 * per microphone in the room (and one per microphone published while it runs) writes that person's
 * audio as it comes (Opus in OGG). A track ends when its person leaves or the recording stops.
 * Once the recording is ready and its last track has ended, one transaction creates the transcript,
 * each track a source placed on the recording's time line by its capture start, so every segment
 * names its speaker. Exactly once: the transcripts' unique recording id.
 */
export function createSpeakerTracks(deps: SpeakerTracksDependencies) {
  const { pool, recorder, storage, logger } = deps;

  async function startTrack(recording: StoredRecording, microphone: MicrophoneTrack): Promise<void> {
    const id = randomUUID();
    const person = await personOf(pool, microphone.participantId);
    const claimed = await claimTrack(pool, {
      id,
      recordingId: recording.id,
      participantId: microphone.participantId,
      displayName: microphone.displayName,
      email: person.email ?? null,
      trackSid: microphone.trackSid,
      storage: storage.kind,
      objectKey: `${id}.ogg`,
    });
    if (!claimed) return; // its track egress is already asked for
    try {
      const egressId = await recorder.startTrack(recording.meetingId, microphone.trackSid, storage.trackOutput(claimed.objectKey));
      await setTrackEgress(pool, claimed.id, egressId);
      logger.info({ recordingId: recording.id, trackId: claimed.id, egressId }, "speaker track started");
    } catch (error) {
      await releaseTrack(pool, claimed.id);
      // The recording goes on; this person's words will be missing from its transcript.
      logger.warn({ err: error, recordingId: recording.id, participantId: microphone.participantId }, "could not start a speaker track");
    }
  }

  const transcribed = async (meetingId: string) => (await getMeeting(pool, meetingId))?.settings.transcription === "on";

  /** Stops the recording's tracks still being written (the recording stopped or failed). */
  async function stopTracksOf(recordingId: string): Promise<void> {
    for (const track of await tracksOf(pool, recordingId))
      if (track.status === "recording" && track.egressId)
        await recorder.stop(track.egressId).catch((error: unknown) => logger.warn({ err: error, trackId: track.id }, "could not stop a speaker track"));
  }

  /** Once the recording is ready and none of its tracks is still being written: its transcript, once. */
  async function transcribeWhenComplete(recordingId: string): Promise<void> {
    const created = await inTransaction(pool, async (client) => {
      // The recording's row serialises the tracks that end together: one of them sees the last end.
      const { rows } = await client.query<{ status: string }>("SELECT status FROM recordings WHERE id = $1 FOR UPDATE", [recordingId]);
      if (rows[0]?.status !== "ready") return undefined;
      const recording = (await recordingById(client, recordingId))!;
      const tracks = await tracksOf(client, recordingId);
      if (tracks.some((track) => track.status === "recording")) return undefined;
      const sources = tracks
        .filter((track): track is StoredTrack & { startedAt: Date } => track.status === "ready" && track.startedAt !== null)
        .map((track) => ({
          storage: track.storage,
          objectKey: track.objectKey,
          offsetMs: Math.max(0, track.startedAt.getTime() - recording.startedAt.getTime()),
          speaker: { displayName: track.displayName, email: track.email },
        }));
      if (sources.length === 0) return undefined;
      const id = randomUUID();
      const inserted = await insertTranscript(client, { id, meetingId: recording.meetingId, orgId: recording.orgId, recordingId, sources });
      return inserted ? { id, speakers: sources.length } : undefined;
    });
    if (created) logger.info({ recordingId, transcriptId: created.id, speakers: created.speakers }, "transcript queued from the recording's speaker tracks");
  }

  async function applyTrackInfo(track: StoredTrack, info: EgressInfo): Promise<void> {
    const began = captureStart(info);
    if (began) await markTrackCapturing(pool, track.id, began);
    const outcome = outcomeOf(info);
    if (outcome.state === "running") return;
    const ended = await markTrackEnded(pool, track.id, {
      status: outcome.state === "complete" ? "ready" : "failed",
      startedAt: outcome.state === "complete" ? outcome.startedAt : null,
      endedAt: outcome.state === "complete" ? outcome.endedAt : new Date(),
    });
    if (!ended) return;
    if (outcome.state === "failed") logger.warn({ trackId: track.id, recorderError: outcome.detail }, "speaker track failed");
    await transcribeWhenComplete(track.recordingId);
  }

  return {
    /** The meeting's transcription is on: its recordings write each person's audio for the transcript (the room says so). */
    transcribed,

    /** The recording began capturing: a track for each microphone in the room, when its meeting is transcribed. */
    async recordingCapturing(recording: StoredRecording): Promise<void> {
      if (!(await transcribed(recording.meetingId))) return;
      for (const microphone of await recorder.microphoneTracks(recording.meetingId)) await startTrack(recording, microphone);
    },

    /** Someone published a track (LiveKit's `track_published`): a microphone gets a track while the meeting is being recorded and transcribed. */
    async trackPublished(meetingId: string, published: PublishedTrack): Promise<void> {
      if (!isMicrophone(published.track)) return;
      const recording = await activeRecordingOf(pool, meetingId);
      if (!recording?.capturing || !(await transcribed(meetingId))) return;
      await startTrack(recording, {
        participantId: published.participant.identity,
        displayName: published.participant.name || published.participant.identity,
        trackSid: published.track.sid,
      });
    },

    /** The recording stopped, became ready or failed: its tracks stop; a ready one is transcribed once they have all ended. */
    async recordingEnded(recording: StoredRecording): Promise<void> {
      await stopTracksOf(recording.id);
      if (recording.status === "ready") await transcribeWhenComplete(recording.id);
    },

    /** livekit-server's egress webhooks: those of speaker tracks (others are not found and ignored). */
    async egressNotified(info: EgressInfo): Promise<void> {
      const track = await trackByEgress(pool, info.egressId);
      if (track && track.status === "recording") await applyTrackInfo(track, info);
    },

    /**
     * The watchdog: a track still being written after its recording finished is asked about (its
     * `egress_ended` may have been lost) and stopped, so a lost notification never holds a
     * transcript back; one the media server does not know has failed.
     */
    async watch(): Promise<void> {
      for (const track of await tracksOutlivingRecordings(pool, 100)) {
        const info = await recorder.info(track.egressId!).catch(() => null);
        if (info === null) continue; // the media server is unreachable: nothing can be judged now
        if (!info) {
          if (await markTrackEnded(pool, track.id, { status: "failed", startedAt: null, endedAt: new Date() })) await transcribeWhenComplete(track.recordingId);
          continue;
        }
        if (outcomeOf(info).state === "running") await recorder.stop(track.egressId!).catch(() => undefined);
        else await applyTrackInfo(track, info);
      }
    },

    /** The recording is being deleted: its tracks' files go with it (their rows go with its row). */
    async removeFilesOf(recordingId: string): Promise<void> {
      for (const track of await tracksOf(pool, recordingId)) await storage.remove(track.objectKey);
    },
  };
}

export type SpeakerTracks = ReturnType<typeof createSpeakerTracks>;
