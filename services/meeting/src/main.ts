import path from "node:path";
import { RoomServiceClient, WebhookReceiver } from "livekit-server-sdk";
import {
  connectCallerResolver,
  createAuthenticator,
  createEventBus,
  createLogger,
  createServicePool,
  createRateLimiter,
  loadConfigOrExit,
  migrate,
  RETENTION_BATCH,
  RETENTION_INTERVAL_MS,
  runUntilSignalled,
  startPeriodicTask,
  startServer,
  afterDrain,
  createShutdownDrain,
} from "@svc/platform";
import { metricsRegistryIfServed, serveMetricsIfConfigured } from "@svc/platform/telemetry";
import { MeetingPageService, MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { configSchema } from "./config.ts";
import { createOutbox } from "./db/outbox.ts";
import { pgMeetingStore } from "./db/pg-meeting-store.ts";
import { purgeMeetingHistory } from "./db/retention.ts";
import { meetingPageService, meetingService } from "./handlers/meeting-service.ts";
import { outboxLagGauges } from "./outbox-metrics.ts";
import { startOutboxRelay } from "./outbox-relay.ts";
import { createJoinGrants } from "./room/join-grants.ts";
import { startMediaWebhookListener } from "./room/media-webhooks.ts";
import { createMeetingLifecycle } from "./room/meeting-lifecycle.ts";
import { createRoomReconciler } from "./room/room-reconciler.ts";

const SERVICE = "meeting";
const SCHEMA = "meeting";

const config = loadConfigOrExit(SERVICE, configSchema);
const logger = createLogger(SERVICE, config.LOG_LEVEL);
const metrics = metricsRegistryIfServed(SERVICE, config);

if (config.livekit.isDevelopmentDefault) {
  logger.warn(
    "LIVEKIT_API_KEY/LIVEKIT_API_SECRET are unset: using the PUBLIC development pair that `npm start` gives its media server. " +
      "Anyone can mint room tokens with it; never use it outside development.",
  );
}

runUntilSignalled({ logger, graceMs: config.SHUTDOWN_GRACE_MS }, async () => {
  await migrate({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, dir: path.join(import.meta.dirname, "../migrations"), logger });
  const pool = createServicePool(config, { schema: SCHEMA, logger, defaultSize: 20 });
  const callers = await connectCallerResolver(config, logger, metrics);
  const bus = await createEventBus(config, logger, SERVICE);
  outboxLagGauges(metrics, pool, logger);
  const relay = startOutboxRelay({
    outbox: createOutbox(pool),
    publisher: bus.publisher(),
    logger: logger.child({ component: "outbox-relay" }),
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
  });

  const { livekit } = config;
  const rooms = new RoomServiceClient(livekit.apiUrl, livekit.apiKey, livekit.apiSecret, { requestTimeout: 5 });
  const roomLogger = logger.child({ component: "meeting-rooms" });
  const lifecycle = createMeetingLifecycle({ pool, graceSeconds: config.MEETING_EMPTY_GRACE_SECONDS, outboxWritten: relay.wake, logger: roomLogger });
  // Closing the room disconnects everyone; retried a few times, since the meeting has already ended.
  const closeRoom = async (meetingId: string) => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await rooms.deleteRoom(meetingId);
      } catch (error) {
        if (attempt === 3) roomLogger.warn({ err: error, meetingId }, "could not close the media room of an ended meeting");
        else await new Promise((resolve) => setTimeout(resolve, attempt * 1_000));
      }
    }
  };

  const drain = createShutdownDrain(config.SHUTDOWN_DRAIN_SECONDS * 1000);
  const webhookListener = await startMediaWebhookListener({
    host: config.HOST,
    port: config.LIVEKIT_WEBHOOK_PORT,
    receiver: new WebhookReceiver(livekit.apiKey, livekit.apiSecret),
    lifecycle,
    evict: (meetingId, participantId) => rooms.removeParticipant(meetingId, participantId),
    logger: roomLogger,
  });
  drain.httpServer(webhookListener);
  // Meetings that are over (emptied past the grace period, or past their planned end) are looked
  // for often (cheap: indexed queries); the grace period is the delay that matters, not this interval.
  const sweeper = startPeriodicTask(
    "end-due-meetings",
    Math.min(1_000, Math.max(100, config.MEETING_EMPTY_GRACE_SECONDS * 250)),
    lifecycle.endDueMeetings,
    roomLogger,
  );
  const reconciler = startPeriodicTask(
    "reconcile-rooms",
    config.ROOM_RECONCILE_INTERVAL_MS,
    createRoomReconciler({ pool, rooms, lifecycle, logger: roomLogger }),
    roomLogger,
  );
  const stopRetention = new AbortController();
  const retention = startPeriodicTask(
    "retention",
    RETENTION_INTERVAL_MS,
    async () => {
      const removed = await purgeMeetingHistory(pool, { ...RETENTION_BATCH, signal: stopRetention.signal });
      if (Object.values(removed).some((count) => count > 0)) logger.info({ removed }, "retention: old outbox rows, webhook ids and idempotency keys removed");
    },
    logger,
  );
  const grantJoin = createJoinGrants({
    pool,
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
    // Without the media server nobody can join anyway; the grant still answers, and the browser
    // reports that it cannot connect.
    openRoom: (meetingId, maxParticipants) =>
      rooms.createRoom({ name: meetingId, maxParticipants }).then(
        () => undefined,
        (error: unknown) =>
          roomLogger.warn({ err: error, meetingId }, "could not open the media room; the first participant's connection will open it without the cap"),
      ),
  });

  const meetings = pgMeetingStore(pool);
  const server = await startServer({
    name: SERVICE,
    drain,
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    metrics,
    services: [MeetingService, MeetingPageService],
    routes: (router) => {
      router.service(
        MeetingService,
        meetingService({
          authenticate: createAuthenticator(callers.resolveCaller),
          meetings,
          lifecycle,
          publicUrl: config.PUBLIC_URL,
          logger,
          // Ending or cancelling closes the room, which disconnects everyone in it.
          roomClosed: (meetingId) => void closeRoom(meetingId),
        }),
      );
      router.service(MeetingPageService, meetingPageService({ meetings, grantJoin }));
    },
    isServing: async () =>
      pool.query("select 1").then(
        () => true,
        () => false,
      ),
  });
  const closeMetrics = await serveMetricsIfConfigured(config, metrics, logger);
  return {
    // The listeners close after the drain (shutdown-drain.ts).
    stopAccepting: afterDrain(drain, [() => server.close(), () => new Promise<void>((resolve) => webhookListener.close(() => resolve())), closeMetrics]),
    // The periodic tasks and the relay's batch finish before the bus and the pool they use close.
    thenClose: [
      () => sweeper.stop(),
      () => reconciler.stop(),
      () => stopRetention.abort(),
      () => retention.stop(),
      () => relay.stop(),
      () => bus.close(),
      () => callers.close(),
      () => pool.end(),
    ],
  };
});
