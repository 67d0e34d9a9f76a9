import { createHash } from "node:crypto";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../logger.ts";
import { retryBackoffMs } from "../retry-backoff.ts";
import { migrate } from "../db/migrate.ts";
import { createPool, inTransaction, type Pool, type PoolClient } from "../db/pool.ts";
import type { EventContextHeaders } from "../telemetry/event-context.ts";
import { handleReceivedBatch, type ReceivedEvent } from "./batch-consumption.ts";
import { MAX_EVENTS_PER_BATCH, type EventBus, type EventPublisher, type EventSubscriber, type EventSubscription, type OutgoingEvent } from "./event-bus.ts";

export interface PostgresEventBusOptions {
  databaseUrl: string;
  /** Prepended to every topic and consumer group, like KAFKA_TOPIC_PREFIX on Kafka. */
  topicPrefix: string;
  logger: Logger;
  /** Partitions per topic: the most consumers of one group that can work at once. */
  partitions?: number;
  /** How often an idle consumer looks for new events even without a notification. */
  pollIntervalMs?: number;
  /** Events handled per claimed partition before its position is committed (at most MAX_EVENTS_PER_BATCH). */
  batchSize?: number;
  /** Events older than this, already consumed by every known group, are deleted. */
  retentionMs?: number;
}

const SCHEMA = "event_bus";
const NOTIFY_CHANNEL = "svc_event_bus";
/** First key of the two-key advisory locks publishers take per topic ("evnt"). */
const PUBLISH_LOCK_CLASS = 0x65766e74;
const DEFAULT_PARTITIONS = 8;
const MAX_BACKOFF_MS = 30_000;
const CLEANUP_INTERVAL_MS = 60 * 60_000;

/**
 * The durable event transport of the embedded default (no KAFKA_BROKERS): an append-only table
 * per deployment, partitioned by key like a Kafka topic, with committed positions per consumer
 * group and partition. Same contract as Kafka: at least once, ordered per key, each group sees
 * every event, the consumers of one group share the partitions (row locks with SKIP LOCKED).
 * New events wake consumers through LISTEN/NOTIFY; a short poll covers missed notifications.
 */
export async function createPostgresEventBus(options: PostgresEventBusOptions): Promise<EventBus> {
  const { databaseUrl, topicPrefix, logger } = options;
  const settings = {
    partitions: options.partitions ?? DEFAULT_PARTITIONS,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    batchSize: Math.min(options.batchSize ?? 100, MAX_EVENTS_PER_BATCH),
    retentionMs: options.retentionMs ?? 7 * 24 * 60 * 60_000,
  };
  await migrate({ databaseUrl, schema: SCHEMA, dir: path.join(import.meta.dirname, "../../migrations/event_bus"), logger });
  const pool = createPool({ databaseUrl, schema: SCHEMA, logger, max: 10 });
  const notifications = createNotificationListener(pool, logger);
  const closers = new Set<() => Promise<void>>();

  return {
    transport: "postgres",
    publisher() {
      const publisher = createPublisher(pool, topicPrefix, settings.partitions);
      closers.add(publisher.close);
      return publisher;
    },
    subscriber() {
      const subscriber = createSubscriber({ pool, notifications, topicPrefix, logger, ...settings });
      closers.add(subscriber.close);
      return subscriber;
    },
    async consumerLag(subscription) {
      // Positions are per partition, like Kafka offsets: the events after the group's position.
      const { rows } = await pool.query<{ lag: string }>(
        `SELECT count(*) AS lag FROM events e
           LEFT JOIN consumer_positions p ON p.group_id = $1 AND p.topic = e.topic AND p.partition = e.partition
          WHERE e.topic = $2 AND e.position > coalesce(p.position, 0)`,
        [topicPrefix + subscription.groupId, topicPrefix + subscription.topic],
      );
      return Number(rows[0]!.lag);
    },
    async close() {
      await Promise.allSettled([...closers].map((close) => close()));
      closers.clear();
      await notifications.close();
      await pool.end();
    },
  };
}

/** The partition of a key: stable across processes and restarts, so one key keeps its order. */
export function partitionForKey(key: string, partitions: number): number {
  return createHash("sha256").update(key).digest().readUInt32BE(0) % partitions;
}

function createPublisher(pool: Pool, topicPrefix: string, partitions: number): EventPublisher {
  return {
    async publish(events: OutgoingEvent[]) {
      if (events.length === 0) return;
      const topics = [...new Set(events.map((event) => topicPrefix + event.topic))].sort();
      await inTransaction(pool, async (client) => {
        // Serialise publishers per topic until commit, so positions become visible in order
        // (sorted, so two publishers of several topics cannot deadlock).
        for (const topic of topics) await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [PUBLISH_LOCK_CLASS, topic]);
        await client.query(
          `INSERT INTO events (topic, partition, event_id, key, type, value, context)
           SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::jsonb[])
           ON CONFLICT ON CONSTRAINT events_topic_event_id_key DO NOTHING`,
          [
            events.map((event) => topicPrefix + event.topic),
            events.map((event) => partitionForKey(event.key, partitions)),
            events.map((event) => event.id),
            events.map((event) => event.key),
            events.map((event) => event.type),
            events.map((event) => Buffer.from(event.value)),
            events.map((event) => (event.context && Object.keys(event.context).length > 0 ? JSON.stringify(event.context) : null)),
          ],
        );
        // Delivered at commit.
        for (const topic of topics) await client.query("SELECT pg_notify($1, $2)", [NOTIFY_CHANNEL, topic]);
      });
    },
    async close() {},
  };
}

interface SubscriberContext {
  pool: Pool;
  notifications: NotificationListener;
  topicPrefix: string;
  logger: Logger;
  partitions: number;
  pollIntervalMs: number;
  batchSize: number;
  retentionMs: number;
}

type BatchOutcome = "idle" | "progress" | "failed";

function createSubscriber(context: SubscriberContext): EventSubscriber {
  const { pool, notifications, topicPrefix, logger } = context;
  const loops: Promise<void>[] = [];
  const timers: NodeJS.Timeout[] = [];
  const stop = new AbortController();

  // The session can die while a handler runs (no query in flight): inTransaction keeps the
  // client's error from crashing the process, and Postgres rolls the claim back.
  const consumeOneBatch = (subscription: EventSubscription, topic: string, groupId: string): Promise<BatchOutcome> =>
    inTransaction(
      pool,
      async (client): Promise<BatchOutcome> => {
        // Claim the least recently served partition of this group that has unread events; the
        // row lock lasts until COMMIT, so no other consumer of the group reads that partition meanwhile.
        const claimed = await client.query<{ partition: number; position: string }>(
          `SELECT p.partition, p.position FROM consumer_positions p
            WHERE p.group_id = $1 AND p.topic = $2
              AND EXISTS (SELECT 1 FROM events e WHERE e.topic = p.topic AND e.partition = p.partition AND e.position > p.position)
            ORDER BY p.updated_at
            LIMIT 1
            FOR UPDATE SKIP LOCKED`,
          [groupId, topic],
        );
        const claim = claimed.rows[0];
        if (!claim) return "idle";
        const batch = await client.query<{ position: string; event_id: string; key: string; type: string; value: Buffer; context: EventContextHeaders | null }>(
          `SELECT position, event_id, key, type, value, context FROM events
            WHERE topic = $1 AND partition = $2 AND position > $3
            ORDER BY position LIMIT $4`,
          [topic, claim.partition, claim.position, context.batchSize],
        );
        if (stop.signal.aborted || batch.rows.length === 0) return "idle";
        const received: ReceivedEvent[] = batch.rows.map((row) => ({
          topic: subscription.topic,
          key: row.key,
          id: row.event_id,
          type: row.type,
          value: new Uint8Array(row.value),
          context: row.context ?? {},
        }));
        try {
          await handleReceivedBatch(subscription, received, { consumerSpans: false });
        } catch (error) {
          // Nothing of the batch is committed: it is read again, and stops its partition until it succeeds.
          logger.warn(
            { err: error, topic, groupId, partition: claim.partition, eventId: received[0]!.id, events: received.length },
            "event handler failed; will retry",
          );
          return "failed";
        }
        await client.query("UPDATE consumer_positions SET position = $4, updated_at = now() WHERE group_id = $1 AND topic = $2 AND partition = $3", [
          groupId,
          topic,
          claim.partition,
          batch.rows.at(-1)!.position,
        ]);
        return "progress";
      },
      { onSessionLost: (error) => logger.warn({ err: error, topic, groupId }, "event bus session lost while handling a batch") },
    );

  const run = async (subscription: EventSubscription, topic: string, groupId: string) => {
    let failures = 0;
    while (!stop.signal.aborted) {
      let outcome: BatchOutcome;
      try {
        outcome = await consumeOneBatch(subscription, topic, groupId);
      } catch (error) {
        logger.warn({ err: error, topic, groupId }, "event bus read failed; retrying");
        outcome = "failed";
      }
      if (outcome === "progress") {
        failures = 0;
        continue;
      }
      if (outcome === "failed") {
        failures += 1;
        await sleep(retryBackoffMs(failures, { initialMs: 500, maxMs: MAX_BACKOFF_MS }), undefined, { signal: stop.signal }).catch(() => undefined);
      } else {
        failures = 0;
        await notifications.wait(topic, context.pollIntervalMs, stop.signal);
      }
    }
  };

  return {
    async start(subscription: EventSubscription) {
      const topic = topicPrefix + subscription.topic;
      const groupId = topicPrefix + subscription.groupId;
      await pool.query(
        `INSERT INTO consumer_positions (group_id, topic, partition)
         SELECT $1, $2, generate_series(0, $3 - 1)
         ON CONFLICT DO NOTHING`,
        [groupId, topic, context.partitions],
      );
      notifications.start();
      loops.push(run(subscription, topic, groupId));
      const cleanup = setInterval(() => void deleteConsumedEvents(pool, context.retentionMs, logger), CLEANUP_INTERVAL_MS);
      cleanup.unref();
      timers.push(cleanup);
    },
    async close() {
      stop.abort();
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled(loops);
    },
  };
}

/** Deletes old events that every known group has read (a group that never ran is not waited for). */
async function deleteConsumedEvents(pool: Pool, retentionMs: number, logger: Logger) {
  try {
    await pool.query(
      `DELETE FROM events e
        WHERE e.published_at < now() - make_interval(secs => $1::double precision / 1000)
          AND NOT EXISTS (SELECT 1 FROM consumer_positions p WHERE p.topic = e.topic AND p.partition = e.partition AND p.position < e.position)`,
      [retentionMs],
    );
  } catch (error) {
    logger.warn({ err: error }, "event bus retention cleanup failed");
  }
}

interface NotificationListener {
  /** Connects the LISTEN session on first use; idempotent. */
  start(): void;
  /** Resolves on a notification for `topic`, after `timeoutMs`, or when `signal` aborts. */
  wait(topic: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** One LISTEN session per bus, reconnected when it drops; waiters fall back to polling meanwhile. */
function createNotificationListener(pool: Pool, logger: Logger): NotificationListener {
  const waiters = new Map<string, Set<() => void>>();
  let client: PoolClient | undefined;
  let started = false;
  let closed = false;

  const connect = async () => {
    while (!closed) {
      try {
        const session = await pool.connect();
        session.on("notification", (message) => {
          const wake = waiters.get(message.payload ?? "");
          if (wake) for (const resolve of [...wake]) resolve();
        });
        session.on("error", (error) => {
          logger.warn({ err: error }, "event bus notification session lost; reconnecting");
          session.release(error);
          if (client === session) client = undefined;
          if (!closed) void connect();
        });
        await session.query(`LISTEN ${NOTIFY_CHANNEL}`);
        client = session;
        return;
      } catch (error) {
        logger.warn({ err: error }, "event bus cannot LISTEN; polling until it can");
        await sleep(1_000);
      }
    }
  };

  return {
    start() {
      if (started) return;
      started = true;
      void connect();
    },
    wait(topic, timeoutMs, signal) {
      return new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const set = waiters.get(topic) ?? new Set();
        waiters.set(topic, set);
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          set.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal.addEventListener("abort", done, { once: true });
        set.add(done);
      });
    },
    async close() {
      closed = true;
      const session = client;
      client = undefined;
      if (session) {
        await session.query(`UNLISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
        session.release();
      }
    },
  };
}
