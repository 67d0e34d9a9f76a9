import { Redis } from "ioredis";
import { Kafka, logLevel } from "kafkajs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { infra, uniqueName } from "../support/infra.ts";

describe("the real infrastructure the infra script started", () => {
  it("Postgres answers and can create a schema-isolated table", async () => {
    const client = new pg.Client({ connectionString: infra.databaseUrl() });
    await client.connect();
    const schema = uniqueName("probe");
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`CREATE TABLE ${schema}.t (id int)`);
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${schema}.t`);
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
    await client.end();
    expect(rows[0].n).toBe(0);
  });

  it("Redis answers SET/GET with expiry", async () => {
    const redis = new Redis(infra.redisUrl());
    const key = uniqueName("probe");
    await redis.set(key, "value", "EX", 5);
    expect(await redis.get(key)).toBe("value");
    expect(await redis.ttl(key)).toBeGreaterThan(0);
    await redis.quit();
  });

  it("Kafka round-trips messages through a consumer group with kafkajs and commits offsets", async () => {
    const kafka = new Kafka({ clientId: "infra-test", brokers: infra.kafkaBrokers().split(","), logLevel: logLevel.NOTHING });
    const topic = uniqueName("probe");
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: ["a", "b", "c"].map((value) => ({ key: "k", value })) });
    await producer.disconnect();

    const groupId = uniqueName("group");
    const received: string[] = [];
    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          received.push(message.value!.toString());
          if (received.length === 3) resolve();
        },
      });
    });
    await consumer.disconnect();
    expect(received).toEqual(["a", "b", "c"]);

    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(offsets[0]!.partitions[0]!.offset).toBe("3");
    await admin.deleteTopics({ topics: [topic] });
    await admin.disconnect();
  });
});
