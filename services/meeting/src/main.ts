import { meetingLimits } from "@svc/platform/contract";
import path from "node:path";
import { RoomServiceClient, WebhookReceiver } from "livekit-server-sdk";
import { connectCallerResolver, createAuthenticator, createRateLimiter, startPeriodicTask, serviceShutdown } from "@svc/platform";
import { startRetention } from "@svc/platform/db";
import { createEventBus } from "@svc/platform/events";
import { runService } from "@svc/platform/service";
import { MeetingPageService, MeetingRoomService, MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { RecordingFileService, RecordingService } from "@svc/proto/svc/meeting/v1/recording_pb";
import { TranscriptFileService, TranscriptService } from "@svc/proto/svc/meeting/v1/transcript_pb";
import { counterIn } from "@svc/platform/telemetry";
import { configSchema } from "./config.ts";
import { createOutbox } from "./db/outbox.ts";
import { pgMeetingStore } from "./db/pg-meeting-store.ts";
import { pgRecordingStore } from "./db/pg-recording-store.ts";
import { pgVisitStore } from "./db/pg-visit-store.ts";
import { activeRecordingOf } from "./db/recordings.ts";
import { recordingFileService, recordingService } from "./handlers/recording-service.ts";
import { transcriptFileService, transcriptService } from "./handlers/transcript-service.ts";
import { pgTranscriptStore } from "./db/pg-transcript-store.ts";
import { deleteTranscriptsPastRetention } from "./db/transcripts.ts";
import { createAccessLinks } from "./recording/access-links.ts";
import { createRecorder } from "./recording/recorder.ts";
import { createRecordings } from "./recording/recordings.ts";
import { createSpeakerTracks } from "./recording/speaker-tracks.ts";
import { filesystemRecordingStorage } from "./recording/recording-storage-filesystem.ts";
import { s3RecordingStorage } from "./recording/recording-storage-s3.ts";
import { purgeMeetingHistory } from "./db/retention.ts";
import { meetingRoomService } from "./handlers/meeting-room-service.ts";
import { meetingPageService, meetingService } from "./handlers/meeting-service.ts";
import { hostsOnline, isBarred } from "./db/room-admissions.ts";
import { outboxLagGauges } from "./outbox-metrics.ts";
import { startOutboxRelay } from "./outbox-relay.ts";
import { createJoinGrants } from "./room/join-grants.ts";
import { createJoinLinks } from "./room/join-links.ts";
import { createRoomCreationGuard, probeRoomCreation } from "./room/room-creation-check.ts";
import { createRoomRights } from "./room/room-rights.ts";
import { hashRoomSecret, isRoomSecret } from "./room/room-secrets.ts";
import { createNoShowReporter } from "./room/no-show-reporter.ts";
import { createRoomActions, ROOM_TOPICS } from "./room/room-actions.ts";
import { checkMediaServer } from "./room/media-server-check.ts";
import { startMediaWebhookListener } from "./room/media-webhooks.ts";
import { createMeetingLifecycle } from "./room/meeting-lifecycle.ts";
import { createRoomReconciler } from "./room/room-reconciler.ts";

const service = { name: "meeting", configSchema, migrationsDir: path.join(import.meta.dirname, "../migrations"), defaultPoolSize: 20, idempotencyKeys: true };

runService(service, async ({ config, logger, metrics, pool, drain, serve }) => {
  if (config.livekit.isDevelopmentDefault) {
    logger.warn(
      "LIVEKIT_API_KEY/LIVEKIT_API_SECRET are unset: using the PUBLIC development pair that `npm start` gives its media server. " +
        "Anyone can mint room tokens with it; never use it outside development.",
    );
  }
  if (config.recording.linkSecretIsDevelopmentDefault) {
    logger.warn(
      "RECORDING_LINK_SECRET is unset: recording download links are signed with a PUBLIC development value. " +
        "Anyone could forge a link to any recording; never use it outside development.",
    );
  }
  if (config.recording.linkSecret === undefined) {
    logger.warn("RECORDING_LINK_SECRET is unset: recordings can be made, but no download link is issued until it is set.");
  }

  const callers = await connectCallerResolver(config, logger, metrics);
  const bus = await createEventBus(config, logger, service.name);
  outboxLagGauges(metrics, pool, logger);
  const relay = startOutboxRelay({
    outbox: createOutbox(pool),
    publisher: bus.publisher(),
    logger: logger.child({ component: "outbox-relay" }),
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
  });

  const { livekit } = config;
  // Not awaited: a media server that is still starting must not hold the meeting service back.
  void checkMediaServer({ apiUrl: livekit.apiUrl, logger: logger.child({ component: "media-server" }) });
  const rooms = new RoomServiceClient(livekit.apiUrl, livekit.apiKey, livekit.apiSecret, { requestTimeout: 5 });
  const roomLogger = logger.child({ component: "meeting-rooms" });
  const lifecycle = createMeetingLifecycle({ pool, graceSeconds: config.MEETING_EMPTY_GRACE_SECONDS, outboxWritten: relay.wake, logger: roomLogger });
  const actions = createRoomActions({ rooms, logger: roomLogger });

  // Recordings (LiveKit Egress through livekit-server's API), their storage and access links.
  const recordingLogger = logger.child({ component: "recordings" });
  if (config.recording.s3?.uploadsWithReadingPair)
    recordingLogger.warn(
      "RECORDING_S3_UPLOAD_ACCESS_KEY_ID is not set: the recorder uploads with the key pair that reads and deletes recordings (set an upload-only pair; required in production)",
    );
  const storage = config.recording.s3
    ? s3RecordingStorage(config.recording.s3)
    : await (async () => {
        const folder = filesystemRecordingStorage({ dir: config.recording.dir, egressDir: config.recording.egressDir });
        // A folder that cannot be made (a read-only root filesystem, as in the chart's pods when
        // recording is off and no volume is mounted) stops recordings, not the meeting service.
        await folder
          .prepare()
          .catch((error: unknown) =>
            recordingLogger.warn(
              { err: error, dir: config.recording.dir },
              "recording folder unavailable: recordings cannot be stored until it can be created",
            ),
          );
        return folder;
      })();
  const recorder = createRecorder({ ...livekit, startTimeoutSeconds: config.RECORDING_START_TIMEOUT_SECONDS, rooms });
  const speakerTracks = createSpeakerTracks({ pool, recorder, storage, logger: recordingLogger });
  const recordings = createRecordings({
    pool,
    recorder,
    speakerTracks,
    storage,
    outboxWritten: relay.wake,
    notifyRoom: (meetingId, notice) => actions.broadcast(meetingId, ROOM_TOPICS.recording, notice),
    logger: recordingLogger,
    retryAfterSeconds: config.RECORDING_RETRY_AFTER_SECONDS,
    startTimeoutSeconds: config.RECORDING_START_TIMEOUT_SECONDS,
    lostAfterMs: config.RECORDING_LOST_AFTER_SECONDS * 1_000,
    finishTimeoutMs: config.RECORDING_FINISH_TIMEOUT_SECONDS * 1_000,
  });
  const accessLinks = createAccessLinks(config.recording.linkSecret);
  const transcriptLinks = createAccessLinks(config.recording.linkSecret, "transcript");
  const stopRecordingsOf = (meetingId: string) =>
    recordings
      .stopAllOf(meetingId)
      .catch((error: unknown) => recordingLogger.warn({ err: error, meetingId }, "could not stop the recording of an ended meeting"));

  // Closing the room disconnects everyone; retried a few times, since the meeting has already ended.
  // Its recording is stopped first, so the file is finished and becomes ready.
  const closeRoom = async (meetingId: string) => {
    await stopRecordingsOf(meetingId);
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await rooms.deleteRoom(meetingId);
      } catch (error) {
        if (attempt === 3) roomLogger.warn({ err: error, meetingId }, "could not close the media room of an ended meeting");
        else await new Promise((resolve) => setTimeout(resolve, attempt * 1_000));
      }
    }
  };

  const webhookListener = await startMediaWebhookListener({
    host: config.HOST,
    port: config.LIVEKIT_WEBHOOK_PORT,
    receiver: new WebhookReceiver(livekit.apiKey, livekit.apiSecret),
    lifecycle,
    evict: (meetingId, participantId) => rooms.removeParticipant(meetingId, participantId),
    egressNotified: async (info) => {
      await recordings.egressNotified(info);
      await speakerTracks.egressNotified(info);
    },
    trackPublished: (meetingId, published) =>
      void speakerTracks
        .trackPublished(meetingId, published)
        .catch((error: unknown) => recordingLogger.warn({ err: error, meetingId }, "could not follow a published track")),
    participantEntered: () => void autoRecordings.runNow(),
    logger: roomLogger,
  });
  drain.httpServer(webhookListener);
  // Meetings that are over (emptied past the grace period, or past their planned end) are looked
  // for often (cheap: indexed queries); the grace period is the delay that matters, not this interval.
  const sweeper = startPeriodicTask(
    "end-due-meetings",
    Math.min(1_000, Math.max(100, config.MEETING_EMPTY_GRACE_SECONDS * 250)),
    async () => {
      // A meeting set to record stops recording when it ends (the file becomes ready).
      for (const meetingId of await lifecycle.endDueMeetings()) await stopRecordingsOf(meetingId);
    },
    roomLogger,
  );
  const recordingWatch = startPeriodicTask(
    "watch-recordings",
    config.RECORDING_WATCH_INTERVAL_MS,
    async () => {
      await recordings.watch();
      await speakerTracks.watch();
    },
    recordingLogger,
  );
  const autoRecordings = startPeriodicTask(
    "start-automatic-recordings",
    config.RECORDING_WATCH_INTERVAL_MS,
    recordings.startAutomaticRecordings,
    recordingLogger,
  );
  const recordingRetention = startPeriodicTask(
    "recording-retention",
    config.RECORDING_RETENTION_CHECK_INTERVAL_MS,
    async () => {
      if (config.RECORDING_RETENTION_DAYS === 0) return;
      const removed = await recordings.purgeExpired(config.RECORDING_RETENTION_DAYS);
      if (removed > 0) recordingLogger.info({ removed }, "retention: recordings past RECORDING_RETENTION_DAYS deleted with their files");
      // Transcripts are kept as long as recordings (issue 43: "retention like recordings"), counted from their completion.
      const transcriptsRemoved = await deleteTranscriptsPastRetention(pool, config.RECORDING_RETENTION_DAYS, 500);
      if (transcriptsRemoved > 0) recordingLogger.info({ removed: transcriptsRemoved }, "retention: transcripts past RECORDING_RETENTION_DAYS deleted");
    },
    recordingLogger,
  );
  const reconciler = startPeriodicTask(
    "reconcile-rooms",
    config.ROOM_RECONCILE_INTERVAL_MS,
    createRoomReconciler({ pool, rooms, lifecycle, logger: roomLogger }),
    roomLogger,
  );
  const retention = startRetention((options) => purgeMeetingHistory(pool, options), logger, {
    message: "retention: old outbox rows, webhook ids and idempotency keys removed",
  });
  const links = createJoinLinks({ pool });
  // meeting.no_show, once per invited person who has not joined by then (across replicas).
  const noShows = startPeriodicTask(
    "report-no-shows",
    config.NO_SHOW_CHECK_INTERVAL_MS,
    createNoShowReporter({ pool, outboxWritten: relay.wake, logger: roomLogger }),
    roomLogger,
  );
  // With an external LiveKit we cannot see its configuration: ask it, at start and with every
  // reconciliation, whether it creates rooms on connection, and refuse joins while it does.
  const roomCreation = createRoomCreationGuard({ probe: () => probeRoomCreation(livekit), logger: roomLogger });
  await roomCreation.check();
  const roomCreationWatch = startPeriodicTask("check-room-creation", config.ROOM_RECONCILE_INTERVAL_MS, roomCreation.check, roomLogger);
  // A grant into a room someone is in makes no CreateRoom (join-grants.ts): this counts the ones that do.
  const roomOpens = metrics
    ? counterIn(metrics, "meeting_media_room_opens_total", "CreateRoom calls made by join grants to open a meeting's room on the media server.")
    : undefined;
  const grants = createJoinGrants({
    pool,
    links,
    refusesJoins: roomCreation.refusesJoins,
    // The hosts in the room hear a knock (their page fetches the lobby list).
    lobbyKnocked: (meetingId) =>
      void hostsOnline(pool, meetingId).then(
        (hosts) => (hosts.length > 0 ? actions.broadcast(meetingId, ROOM_TOPICS.lobby, { type: "knock" }, hosts) : undefined),
        (error: unknown) => roomLogger.warn({ err: error, meetingId }, "could not tell the hosts about the lobby"),
      ),
    media: livekit,
    maxParticipants: config.MEETING_MAX_PARTICIPANTS,
    tokenTtlSeconds: config.JOIN_TOKEN_TTL_SECONDS,
    limiter: createRateLimiter({
      name: "join-grants",
      points: config.JOIN_GRANTS_PER_MINUTE,
      durationSeconds: 60,
      redis: callers.redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
    }),
    meetingLimiter: createRateLimiter({
      name: "join-grants-per-meeting",
      points: config.JOIN_GRANTS_PER_MEETING_PER_MINUTE,
      durationSeconds: 60,
      redis: callers.redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
    }),
    personalLimiter: createRateLimiter({
      name: "join-grants-per-link",
      points: config.JOIN_GRANTS_PER_LINK_PER_MINUTE,
      durationSeconds: 60,
      redis: callers.redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
    }),
    lobbyPerAddress: config.LOBBY_WAITING_PER_ADDRESS,
    // CreateRoom opens the room or, when it is open, keeps it (with its cap). A room nobody
    // enters closes when the grant's token can no longer be used.
    openRoom: (meetingId, maxParticipants) => {
      roomOpens?.inc();
      return rooms.createRoom({ name: meetingId, maxParticipants, emptyTimeout: config.JOIN_TOKEN_TTL_SECONDS }).then(
        () => undefined,
        (error: unknown) => {
          roomLogger.warn({ err: error, meetingId }, "could not open the media room");
          throw error;
        },
      );
    },
  });

  const rights = createRoomRights({ pool, links, actions, logger: roomLogger });
  const meetings = pgMeetingStore(pool);
  const recordingStore = pgRecordingStore(pool);
  const transcriptStore = pgTranscriptStore(pool);
  const authenticate = createAuthenticator(callers.resolveCaller);
  const server = await serve({
    services: [MeetingService, MeetingPageService, MeetingRoomService, RecordingService, RecordingFileService, TranscriptService, TranscriptFileService],
    routes: (router) => {
      router.service(
        MeetingService,
        meetingService({
          authenticate,
          meetings,
          lifecycle,
          publicUrl: config.PUBLIC_URL,
          logger,
          // Ending or cancelling closes the room, which disconnects everyone in it.
          roomClosed: (meetingId) => void closeRoom(meetingId),
          links,
          visits: pgVisitStore(pool),
          rightsChanged: rights.changed,
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
          pool,
          grants,
          lifecycle,
          actions,
          recordings,
          links,
          closeRoom: (meetingId) => void closeRoom(meetingId),
          chatLimiter: createRateLimiter({
            name: "room-chat",
            points: config.CHAT_MESSAGES_PER_MINUTE,
            durationSeconds: 60,
            redis: callers.redis,
            keyPrefix: config.REDIS_KEY_PREFIX,
          }),
          reactionLimiter: createRateLimiter({
            name: "room-reaction",
            points: meetingLimits.reactionsPerWindow,
            durationSeconds: meetingLimits.reactionWindowSeconds,
            redis: callers.redis,
            keyPrefix: config.REDIS_KEY_PREFIX,
          }),
          rightsChanged: rights.changed,
          chatMessagesPerMeeting: config.CHAT_MESSAGES_PER_MEETING,
          sessionIdleSeconds: config.JOIN_TOKEN_TTL_SECONDS,
        }),
      );
      router.service(
        RecordingService,
        recordingService({
          authenticate,
          store: recordingStore,
          recordings,
          links: accessLinks,
          publicUrl: config.PUBLIC_URL,
          linkTtlSeconds: config.RECORDING_LINK_TTL_SECONDS,
          logger: recordingLogger,
        }),
      );
      router.service(RecordingFileService, recordingFileService({ store: recordingStore, links: accessLinks, storage }));
      router.service(
        TranscriptService,
        transcriptService({
          authenticate,
          store: transcriptStore,
          links: transcriptLinks,
          publicUrl: config.PUBLIC_URL,
          linkTtlSeconds: config.RECORDING_LINK_TTL_SECONDS,
          logger: logger.child({ component: "transcripts" }),
        }),
      );
      router.service(TranscriptFileService, transcriptFileService({ store: transcriptStore, links: transcriptLinks }));
    },
  });
  // The periodic tasks and the relay's batch finish before the bus and the pool (runService ends it) they use close.
  return serviceShutdown(drain, {
    listeners: [server, { close: () => new Promise<void>((resolve) => webhookListener.close(() => resolve())) }],
    thenClose: [sweeper, recordingWatch, autoRecordings, recordingRetention, reconciler, roomCreationWatch, noShows, retention, relay, bus, callers],
  });
});
