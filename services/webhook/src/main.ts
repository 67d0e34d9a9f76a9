import path from "node:path";
import { connectCallerResolver, createAuthenticator, createRateLimiter, startPeriodicTask, serviceShutdown } from "@svc/platform";
import { startRetention } from "@svc/platform/db";
import { createEventBus } from "@svc/platform/events";
import { runService } from "@svc/platform/service";
import { consumerLagGauge } from "@svc/platform/telemetry";
import { WebhookService } from "@svc/proto/svc/webhook/v1/webhook_pb";
import { webhookService } from "./handlers/webhook-service.ts";
import { configSchema } from "./config.ts";
import { meetingEventsSubscription } from "./consumer/meeting-events.ts";
import { listenForDueDeliveries } from "./db/due-notifications.ts";
import { pgDeliveryLog, pgSubscriptionStore } from "./db/pg-webhook-stores.ts";
import { wipeExpiredPreviousSecrets } from "./db/secret-rotation.ts";
import { purgeWebhookHistory } from "./db/retention.ts";
import { dispatcherSettings } from "./delivery/dispatcher-settings.ts";
import { createDispatcher } from "./delivery/dispatcher.ts";
import { deliveryBacklogGauges, measuredSender } from "./delivery/delivery-metrics.ts";
import { createHttpSender } from "./delivery/http-sender.ts";
import { createEndpointRateLimiter } from "./delivery/endpoint-rate-limiter.ts";
import { createSecretBox } from "./signing/secret-box.ts";

/** How often rotated-out secrets past their grace window are wiped (they stop signing at once). */
const SECRET_SWEEP_INTERVAL_MS = 60_000;

const service = { name: "webhook", configSchema, migrationsDir: path.join(import.meta.dirname, "../migrations"), defaultPoolSize: 20, idempotencyKeys: true };

runService(service, async ({ config, logger, metrics, pool, drain, serve }) => {
  if (config.WEBHOOK_SECRET_KEY.isDevelopmentDefault) {
    logger.warn(
      "WEBHOOK_SECRET_KEY is unset: signing secrets are encrypted with a PUBLIC DEVELOPMENT KEY. " +
        "Never use this outside development; set WEBHOOK_SECRET_KEY to the output of `openssl rand -base64 32`.",
    );
  }
  if (config.WEBHOOK_ALLOW_PRIVATE_TARGETS || config.WEBHOOK_ALLOW_INSECURE) {
    logger.warn(
      { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, allowInsecure: config.WEBHOOK_ALLOW_INSECURE },
      "webhook target restrictions relaxed (development/test setting)",
    );
  }

  const callers = await connectCallerResolver(config, logger, metrics);
  const { resolveCaller } = callers;
  const secretBox = createSecretBox(config.WEBHOOK_SECRET_KEY.key);
  const targetPolicy = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, allowInsecure: config.WEBHOOK_ALLOW_INSECURE };

  const sender = measuredSender(createHttpSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }), metrics);
  deliveryBacklogGauges(metrics, pool, logger);
  const dispatcher = createDispatcher({
    pool,
    sender,
    secretBox,
    logger: logger.child({ component: "dispatcher" }),
    ...dispatcherSettings(config),
    rateLimiter: createEndpointRateLimiter({
      redis: callers.redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      logger: logger.child({ component: "endpoint-rate-limit" }),
    }),
  });
  // Rotated-out secrets stop signing when their window ends; this wipes the ciphertext too. A short
  // window (tests) is swept as often as it lasts, so nothing outlives it by much.
  const secretSweep = startPeriodicTask(
    "wipe expired signing secrets",
    Math.max(1_000, Math.min(SECRET_SWEEP_INTERVAL_MS, config.WEBHOOK_SECRET_ROTATION_GRACE_SECONDS * 1000)),
    async () => {
      const wiped = await wipeExpiredPreviousSecrets(pool);
      if (wiped > 0) logger.info({ wiped }, "wiped rotated-out signing secrets past their grace window");
    },
    logger,
  );
  const pendingCaps = { perEndpoint: config.WEBHOOK_MAX_PENDING_PER_ENDPOINT, perOrganization: config.WEBHOOK_MAX_PENDING_PER_ORG };
  const notifications = listenForDueDeliveries({ databaseUrl: config.DATABASE_URL, logger, onDue: dispatcher.wake });

  const server = await serve({
    services: [WebhookService],
    routes: (router) =>
      router.service(
        WebhookService,
        webhookService({
          subscriptions: pgSubscriptionStore(pool),
          deliveries: pgDeliveryLog(pool),
          authenticate: createAuthenticator(resolveCaller),
          secretBox,
          targetPolicy,
          maxSubscriptionsPerOrg: config.WEBHOOK_MAX_SUBSCRIPTIONS_PER_ORG,
          rotationGraceMs: config.WEBHOOK_SECRET_ROTATION_GRACE_SECONDS * 1000,
          pendingCaps,
          testEventLimiter: createRateLimiter({
            name: "webhook-test-events",
            points: config.WEBHOOK_TEST_EVENTS_PER_MINUTE,
            durationSeconds: 60,
            redis: callers.redis,
            keyPrefix: config.REDIS_KEY_PREFIX,
          }),
          wakeDispatcher: dispatcher.wake,
        }),
      ),
  });

  dispatcher.start();
  const retention = startRetention((options) => purgeWebhookHistory(pool, config.WEBHOOK_RETENTION_DAYS, options), logger, {
    message: "retention: old delivery history removed",
    fields: { retentionDays: config.WEBHOOK_RETENTION_DAYS },
  });
  const bus = await createEventBus(config, logger, service.name);
  const meetingEvents = meetingEventsSubscription({ pool, logger, pendingCaps, onDeliveriesStored: dispatcher.wake });
  await bus.subscriber().start(meetingEvents);
  consumerLagGauge(metrics, bus, [meetingEvents], logger);

  // The gRPC listener closes after the drain (shutdown-drain.ts); consuming stops at once. The
  // dispatcher finishes the deliveries in flight before the sender and pools (runService ends the
  // database's) they use close.
  return serviceShutdown(drain, {
    listeners: [server],
    consumers: [bus],
    thenClose: [retention, dispatcher, sender, secretSweep, notifications, callers],
  });
});
