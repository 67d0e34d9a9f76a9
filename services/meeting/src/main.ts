import path from "node:path";
import {
  connectCallerResolver,
  createAuthenticator,
  createEventBus,
  createLogger,
  createPool,
  loadConfigOrExit,
  migrate,
  runUntilSignalled,
  startServer,
} from "@svc/platform";
import { MeetingPageService, MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { configSchema } from "./config.ts";
import { createMeetingStore } from "./db/meetings.ts";
import { createOutbox } from "./db/outbox.ts";
import { meetingPageService, meetingService } from "./meeting-service.ts";
import { startOutboxRelay } from "./outbox-relay.ts";

const SERVICE = "meeting";
const SCHEMA = "meeting";

const config = loadConfigOrExit(SERVICE, configSchema);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

runUntilSignalled(logger, async () => {
  await migrate({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, dir: path.join(import.meta.dirname, "../migrations"), logger });
  const pool = createPool({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, logger, max: config.DATABASE_POOL_SIZE ?? 20 });
  const callers = await connectCallerResolver(config, logger);
  const { resolveCaller } = callers;
  const bus = await createEventBus(config, logger, SERVICE);
  const relay = startOutboxRelay({
    outbox: createOutbox(pool),
    publisher: bus.publisher(),
    logger: logger.child({ component: "outbox-relay" }),
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
  });
  const meetings = createMeetingStore(pool);
  const server = await startServer({
    name: SERVICE,
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    services: [MeetingService, MeetingPageService],
    routes: (router) => {
      router.service(
        MeetingService,
        meetingService({
          authenticate: createAuthenticator(resolveCaller),
          meetings,
          publicUrl: config.PUBLIC_URL,
          logger,
          outboxWritten: relay.wake,
        }),
      );
      router.service(MeetingPageService, meetingPageService({ meetings }));
    },
    isServing: async () => pool.query("select 1").then(() => true, () => false),
  });
  // Closed in reverse: stop taking calls, finish the relay's batch, then the bus and the pool.
  return [() => pool.end(), () => callers.close(), () => bus.close(), () => relay.stop(), () => server.close()];
});
