import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { notFound } from "@svc/platform";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { layoutOf } from "../recording-service.ts";
import type { MeetingRoomServiceDependencies, RoomAccess } from "./room-context.ts";

type RoomRecordingHandlers = Pick<ServiceImpl<typeof MeetingRoomService>, "startRoomRecording" | "stopRoomRecording" | "getRoomRecording">;

/** Recording from inside the room: a host starts and stops it; everyone may ask whether it runs. */
export function roomRecordingHandlers({ room, recordings }: MeetingRoomServiceDependencies, { participant, host }: RoomAccess): RoomRecordingHandlers {
  return {
    async startRoomRecording(request) {
      await host(request.meetingId, request.roomSession);
      const layout = layoutOf(request.layout);
      const meeting = await room.meeting(request.meetingId);
      if (!meeting) throw notFound("Meeting");
      const recording = await recordings.start(meeting, layout, "host");
      return { recordingId: recording.id, layout: recording.layout };
    },

    async stopRoomRecording(request) {
      await host(request.meetingId, request.roomSession);
      const active = await room.activeRecording(request.meetingId);
      if (!active) throw new ConnectError("Nothing is being recorded in this meeting", Code.NotFound);
      await recordings.stop(active);
      return { recordingId: active.id };
    },

    async getRoomRecording(request) {
      await participant(request.meetingId, request.roomSession);
      const meeting = await room.meeting(request.meetingId);
      const active = await room.activeRecording(request.meetingId);
      return {
        recording: active !== undefined,
        capturing: active?.capturing ?? false,
        // Speaker tracks are written exactly while a recording of a transcribed meeting captures (speaker-tracks.ts).
        transcribed: (active?.capturing ?? false) && meeting?.settings.transcription === "on",
        layout: active?.layout ?? "",
        mode: meeting?.settings.recording ?? "off",
      };
    },
  };
}
