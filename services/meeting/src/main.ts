import path from "node:path";
import { RoomServiceClient, WebhookReceiver } from "livekit-server-sdk";
import { connectCallerResolver, createAuthenticator, serviceShutdown } from "@svc/platform";
import { createEventBus } from "@svc/platform/events";
import { runService } from "@svc/platform/service";
import { configSchema } from "./config.ts";
import { createOutbox } from "./db/outbox.ts";
import { pgJoinLinkStore } from "./db/pg-join-link-store.ts";
import { outboxLagGauges } from "./outbox-metrics.ts";
import { startOutboxRelay } from "./outbox-relay.ts";
import { createJoinLinks } from "./room/join-links.ts";
import { checkMediaServer } from "./room/media-server-check.ts";
import { startMediaWebhookListener } from "./room/media-webhooks.ts";
import { createMeetingLifecycle } from "./room/meeting-lifecycle.ts";
import { createRoomActions } from "./room/room-actions.ts";
import { createRoomRights } from "./room/room-rights.ts";
import { startBackgroundTasks } from "./composition/background-tasks.ts";
import { warnAboutDevelopmentDefaults } from "./composition/development-warnings.ts";
import { startJoinGrants } from "./composition/join-grant-parts.ts";
import { rateLimitsOn } from "./composition/rate-limits.ts";
import { createRecordingParts } from "./composition/recording-parts.ts";
import { roomCloser } from "./composition/room-closing.ts";
import { meetingRpcServices } from "./composition/rpc-services.ts";

const service = { name: "meeting", configSchema, migrationsDir: path.join(import.meta.dirname, "../migrations"), defaultPoolSize: 20, idempotencyKeys: true };

// Configuration (runService) → dependencies → servers. What each step builds is in composition/.
runService(service, async ({ config, logger, metrics, pool, drain, serve }) => {
  warnAboutDevelopmentDefaults(config, logger);

  // Callers, rate limits, and the events the service writes to its outbox for the bus.
  const callers = await connectCallerResolver(config, logger, metrics);
  const rateLimits = rateLimitsOn(callers.redis, config.REDIS_KEY_PREFIX);
  const bus = await createEventBus(config, logger, service.name);
  outboxLagGauges(metrics, pool, logger);
  const relay = startOutboxRelay({
    outbox: createOutbox(pool),
    publisher: bus.publisher(),
    logger: logger.child({ component: "outbox-relay" }),
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
  });

  // The media server, the meetings' rooms on it, and recordings.
  const { livekit } = config;
  // Not awaited: a media server that is still starting must not hold the meeting service back.
  void checkMediaServer({ apiUrl: livekit.apiUrl, logger: logger.child({ component: "media-server" }) });
  const rooms = new RoomServiceClient(livekit.apiUrl, livekit.apiKey, livekit.apiSecret, { requestTimeout: 5 });
  const roomLogger = logger.child({ component: "meeting-rooms" });
  const recordingLogger = logger.child({ component: "recordings" });
  const lifecycle = createMeetingLifecycle({ pool, graceSeconds: config.MEETING_EMPTY_GRACE_SECONDS, outboxWritten: relay.wake, logger: roomLogger });
  const actions = createRoomActions({ rooms, logger: roomLogger });
  const recording = await createRecordingParts({ config, pool, rooms, actions, outboxWritten: relay.wake, logger: recordingLogger });
  const closeRoom = roomCloser({ rooms, stopRecordingsOf: recording.stopRecordingsOf, logger: roomLogger });

  // Servers and scheduled work: the media server's webhooks, the periodic tasks, join grants, gRPC.
  const webhookListener = await startMediaWebhookListener({
    host: config.HOST,
    port: config.LIVEKIT_WEBHOOK_PORT,
    receiver: new WebhookReceiver(livekit.apiKey, livekit.apiSecret),
    lifecycle,
    evict: (meetingId, participantId) => rooms.removeParticipant(meetingId, participantId),
    egressNotified: async (info) => {
      await recording.recordings.egressNotified(info);
      await recording.speakerTracks.egressNotified(info);
    },
    trackPublished: (meetingId, published) =>
      void recording.speakerTracks
        .trackPublished(meetingId, published)
        .catch((error: unknown) => recordingLogger.warn({ err: error, meetingId }, "could not follow a published track")),
    participantEntered: () => void tasks.autoRecordings.runNow(),
    logger: roomLogger,
  });
  drain.httpServer(webhookListener);
  const tasks = startBackgroundTasks({ config, pool, rooms, lifecycle, recording, outboxWritten: relay.wake, logger, roomLogger, recordingLogger });
  const links = createJoinLinks({ store: pgJoinLinkStore(pool) });
  const { grants, roomCreationWatch } = await startJoinGrants({ config, pool, links, rooms, actions, rateLimits, metrics, logger: roomLogger });
  const rights = createRoomRights({ pool, links, actions, logger: roomLogger });
  const server = await serve(
    meetingRpcServices({
      config,
      pool,
      authenticate: createAuthenticator(callers.resolveCaller),
      lifecycle,
      links,
      grants,
      actions,
      recording,
      closeRoom,
      rightsChanged: rights.changed,
      rateLimits,
      logger,
      recordingLogger,
    }),
  );
  // The periodic tasks and the relay's batch finish before the bus and the pool (runService ends it) they use close.
  return serviceShutdown(drain, {
    listeners: [server, { close: () => new Promise<void>((resolve) => webhookListener.close(() => resolve())) }],
    thenClose: [...tasks.all, roomCreationWatch, relay, bus, callers],
  });
});
