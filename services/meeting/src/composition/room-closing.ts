import type { RoomServiceClient } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";

/**
 * Closes the media room of a meeting that ended, which disconnects everyone in it. Its recording
 * is stopped first, so the file is finished and becomes ready. Retried a few times, since the
 * meeting has already ended.
 */
export function roomCloser(deps: { rooms: RoomServiceClient; stopRecordingsOf: (meetingId: string) => Promise<unknown>; logger: Logger }) {
  return async (meetingId: string) => {
    await deps.stopRecordingsOf(meetingId);
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await deps.rooms.deleteRoom(meetingId);
      } catch (error) {
        if (attempt === 3) deps.logger.warn({ err: error, meetingId }, "could not close the media room of an ended meeting");
        else await new Promise((resolve) => setTimeout(resolve, attempt * 1_000));
      }
    }
  };
}
