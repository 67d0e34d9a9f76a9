import { Kafka, logLevel } from "kafkajs";
import pg from "pg";
import { expect, it } from "vitest";
import { infra } from "../support/infra.ts";
import { startStack } from "../support/stack.ts";
import { waitFor } from "../support/wait.ts";

// Every integration test starts stacks; what one leaves on the shared infrastructure piles up run
// after run (a broker with thousands of leftover partitions no longer started within 60 s).
it("a stopped test stack leaves no database, Kafka topic or consumer group behind", async () => {
  const kafka = new Kafka({ clientId: "cleanup-test", brokers: infra.kafkaBrokers().split(","), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const postgres = new pg.Client({ connectionString: infra.databaseUrl() });
  await postgres.connect();
  try {
    const stack = await startStack();
    const prefix = stack.env.KAFKA_TOPIC_PREFIX!;
    const database = new URL(stack.env.DATABASE_URL!).pathname.slice(1);
    const ofThisRun = async () => ({
      topics: (await admin.listTopics()).filter((topic) => topic.startsWith(prefix)),
      groups: (await admin.listGroups()).groups.map((group) => group.groupId).filter((groupId) => groupId.startsWith(prefix)),
    });
    // The webhook service's consumer has joined its group on the meeting events topic.
    await waitFor(
      async () => {
        const { topics, groups } = await ofThisRun();
        return topics.length > 0 && groups.length > 0;
      },
      30_000,
      "the stack's topic and consumer group did not appear",
    );

    await stack.stop();

    expect(await ofThisRun()).toEqual({ topics: [], groups: [] });
    const { rowCount } = await postgres.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    expect(rowCount).toBe(0);
  } finally {
    await admin.disconnect();
    await postgres.end();
  }
});
