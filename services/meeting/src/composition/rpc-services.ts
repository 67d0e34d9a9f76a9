import { meetingLimits } from "@svc/platform/contract";
import type { Authenticate, Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import type { ServerOptions } from "@svc/platform/grpc";
import { MeetingPageService, MeetingRoomService, MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { RecordingFileService, RecordingService } from "@svc/proto/svc/meeting/v1/recording_pb";
import { TranscriptFileService, TranscriptService } from "@svc/proto/svc/meeting/v1/transcript_pb";
import type { Config } from "../config.ts";
import { pgMeetingStore } from "../db/pg-meeting-store.ts";
import { pgRecordingStore } from "../db/pg-recording-store.ts";
import { pgRoomStore } from "../db/pg-room-store.ts";
import { pgTranscriptStore } from "../db/pg-transcript-store.ts";
import { pgVisitStore } from "../db/pg-visit-store.ts";
import { activeRecordingOf } from "../db/recordings.ts";
import { isBarred } from "../db/room-admissions.ts";
import { meetingRoomService } from "../handlers/meeting-room-service.ts";
import { meetingPageService } from "../handlers/meeting-page-service.ts";
import { meetingService } from "../handlers/meeting-service.ts";
import { recordingFileService, recordingService } from "../handlers/recording-service.ts";
import { transcriptFileService, transcriptService } from "../handlers/transcript-service.ts";
import type { JoinGrants } from "../room/join-grants.ts";
import type { JoinLinks } from "../room/join-links.ts";
import type { MeetingLifecycle } from "../room/meeting-lifecycle.ts";
import type { RoomActions } from "../room/room-actions.ts";
import { hashRoomSecret, isRoomSecret } from "../room/room-secrets.ts";
import type { RateLimits } from "./rate-limits.ts";
import type { RecordingParts } from "./recording-parts.ts";

/** The meeting service's seven gRPC services, each handler given its dependencies. */
export function meetingRpcServices(deps: {
  config: Config;
  pool: Pool;
  authenticate: Authenticate;
  lifecycle: MeetingLifecycle;
  links: JoinLinks;
  grants: JoinGrants;
  actions: RoomActions;
  recording: RecordingParts;
  /** Closes a meeting's media room (not awaited by the handlers: it retries for seconds). */
  closeRoom: (meetingId: string) => Promise<unknown>;
  /** Tells the people in a room that their rights may have changed. */
  rightsChanged: (meetingId: string) => void;
  rateLimits: RateLimits;
  logger: Logger;
  recordingLogger: Logger;
}): Pick<ServerOptions, "services" | "routes"> {
  const { config, pool, lifecycle, links, grants, recording } = deps;
  const meetings = pgMeetingStore(pool);
  const recordingStore = pgRecordingStore(pool);
  const transcriptStore = pgTranscriptStore(pool);
  const closeRoom = (meetingId: string) => void deps.closeRoom(meetingId);
  return {
    services: [MeetingService, MeetingPageService, MeetingRoomService, RecordingService, RecordingFileService, TranscriptService, TranscriptFileService],
    routes: (router) => {
      router.service(
        MeetingService,
        meetingService({
          authenticate: deps.authenticate,
          meetings,
          lifecycle,
          publicUrl: config.PUBLIC_URL,
          logger: deps.logger,
          // Ending or cancelling closes the room, which disconnects everyone in it.
          roomClosed: closeRoom,
          links,
          visits: pgVisitStore(pool),
          rightsChanged: deps.rightsChanged,
        }),
      );
      router.service(
        MeetingPageService,
        meetingPageService({
          meetings,
          grants,
          links,
          isRecording: async (meetingId) => (await activeRecordingOf(pool, meetingId)) !== undefined,
          isRemoved: (meetingId, visitorKey, linkId) => isBarred(pool, meetingId, isRoomSecret(visitorKey) ? hashRoomSecret(visitorKey) : null, linkId),
        }),
      );
      router.service(
        MeetingRoomService,
        meetingRoomService({
          room: pgRoomStore(pool),
          grants,
          lifecycle,
          actions: deps.actions,
          recordings: recording.recordings,
          links,
          closeRoom,
          chatLimiter: deps.rateLimits("room-chat", config.CHAT_MESSAGES_PER_MINUTE),
          reactionLimiter: deps.rateLimits("room-reaction", meetingLimits.reactionsPerWindow, meetingLimits.reactionWindowSeconds),
          rightsChanged: deps.rightsChanged,
          chatMessagesPerMeeting: config.CHAT_MESSAGES_PER_MEETING,
          sessionIdleSeconds: config.JOIN_TOKEN_TTL_SECONDS,
        }),
      );
      router.service(
        RecordingService,
        recordingService({
          authenticate: deps.authenticate,
          store: recordingStore,
          recordings: recording.recordings,
          links: recording.accessLinks,
          publicUrl: config.PUBLIC_URL,
          linkTtlSeconds: config.RECORDING_LINK_TTL_SECONDS,
          logger: deps.recordingLogger,
        }),
      );
      router.service(
        RecordingFileService,
        recordingFileService({
          store: recordingStore,
          links: recording.accessLinks,
          storage: recording.storage,
        }),
      );
      router.service(
        TranscriptService,
        transcriptService({
          authenticate: deps.authenticate,
          store: transcriptStore,
          links: recording.transcriptLinks,
          publicUrl: config.PUBLIC_URL,
          linkTtlSeconds: config.RECORDING_LINK_TTL_SECONDS,
          logger: deps.logger.child({ component: "transcripts" }),
        }),
      );
      router.service(TranscriptFileService, transcriptFileService({ store: transcriptStore, links: recording.transcriptLinks }));
    },
  };
}
