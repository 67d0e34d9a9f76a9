import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorMetadata } from "@svc/platform/contract";
import type { StoredMeeting } from "../meeting-store.ts";
import { claimRecording, markRecorderStarted, releaseClaim } from "../db/recordings.ts";
import type { RecordingLayout, RecordingStarter, StoredRecording } from "../recording-store.ts";
import { recordingStartedEvent } from "../meeting-events.ts";
import { RecorderUnavailable, RoomNotOpen } from "./recorder.ts";
import type { RecordingChanges, RecordingsDependencies } from "./recording-changes.ts";

export const refused = (message: string) => new ConnectError(message, Code.FailedPrecondition);

/**
 * Starting a recording of a meeting's room: the meeting's setting allows it and someone is in the
 * room; the meeting is claimed first (one recording at a time), then the recorder is asked, with
 * the start timeout; a refusal gives the claim back.
 */
export function recordingStart(deps: RecordingsDependencies, { withEvents, tell }: RecordingChanges) {
  const { pool, recorder, storage, logger } = deps;

  return async function start(meeting: StoredMeeting, layout: RecordingLayout, startedBy: RecordingStarter): Promise<StoredRecording> {
    if (meeting.settings.recording === "off") throw refused("Recording is off for this meeting: set its recording setting to manual or auto first");
    if (meeting.status === "ended" || meeting.status === "cancelled")
      throw refused(`Meeting has ${meeting.status === "ended" ? "ended" : "been cancelled"}: it cannot be recorded`);
    if (meeting.status !== "live") throw refused("Nobody is in the meeting room yet: a recording can start once someone has joined");
    const id = randomUUID();
    const claimed = await claimRecording(pool, {
      id,
      meetingId: meeting.id,
      orgId: meeting.orgId,
      layout,
      startedBy,
      storage: storage.kind,
      objectKey: `${id}.mp4`,
    });
    if (!claimed) throw new ConnectError("This meeting is being recorded already: stop that recording first", Code.FailedPrecondition);
    let egressId: string;
    try {
      egressId = await recorder.start(meeting.id, layout, storage.output(claimed.objectKey));
    } catch (error) {
      await releaseClaim(pool, id);
      if (error instanceof RoomNotOpen) throw refused("Nobody is in the meeting room: a recording can start once someone has joined");
      if (!(error instanceof RecorderUnavailable)) throw error;
      logger.warn({ meetingId: meeting.id, reason: error.message }, "the recorder refused or did not answer a start");
      throw new ConnectError(
        `No recorder has capacity for this recording now (it refused or did not answer within ${deps.startTimeoutSeconds} s): try again in ${deps.retryAfterSeconds} seconds`,
        Code.Unavailable,
        { [errorMetadata.retryAfter]: String(deps.retryAfterSeconds) },
      );
    }
    const started = await withEvents(async (client, emit) => {
      const updated = await markRecorderStarted(client, id, egressId);
      if (updated) emit(recordingStartedEvent(updated));
      return updated;
    });
    if (!started) throw new ConnectError("The recording ended as it started", Code.Aborted);
    logger.info({ recordingId: id, meetingId: meeting.id, egressId, layout, startedBy }, "recording started");
    tell(meeting.id, { type: "started", recordingId: id, layout });
    return started;
  };
}
