import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SHUTDOWN_GRACE_MS } from "@svc/platform";
import { infra } from "../support/infra.ts";
import { startSaslKafkaBroker, type SaslKafkaBroker } from "../support/sasl-kafka-broker.ts";
import { useStack } from "../support/use-stack.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { createTenant } from "../support/tenants.ts";

// A stop must never wait on a dependency that is gone: when the database, the broker, Redis and
// the peer services all vanish at the moment the services get SIGTERM (a node failing, a whole
// namespace deleted), each service still exits within its grace period.
const GRACE_MS = 4_000;
/** The grace period, plus the time for the exit to be seen on a busy machine. */
const EXITED_WITHIN_MS = GRACE_MS + 2_000;

describe("services whose dependencies vanish as they are told to stop", () => {
  let broker: SaslKafkaBroker;
  let database: TcpProxy;
  let redis: TcpProxy;
  const user = { username: "svc", password: randomUUID() };
  beforeAll(async () => {
    broker = await startSaslKafkaBroker([user]);
    const [postgresHost, postgresPort] = [new URL(infra.databaseUrl()).hostname, Number(new URL(infra.databaseUrl()).port)];
    database = await startTcpProxy({ host: postgresHost, port: postgresPort });
    redis = await startTcpProxy({ host: new URL(infra.redisUrl()).hostname, port: Number(new URL(infra.redisUrl()).port) });
  }, 300_000);
  afterAll(async () => {
    await broker?.stop();
  }, 120_000);
  const fixture = useStack(() => ({
    databaseUrl: (url) => {
      const proxied = new URL(url);
      proxied.port = String(database.port);
      return proxied.toString();
    },
    env: {
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      KAFKA_BROKERS: broker.brokers,
      KAFKA_SASL_MECHANISM: "scram-sha-512",
      KAFKA_SASL_USERNAME: user.username,
      KAFKA_SASL_PASSWORD: user.password,
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    },
  }));

  it("each exits within its grace period", { timeout: 60_000 }, async () => {
    expect(GRACE_MS).toBeLessThan(DEFAULT_SHUTDOWN_GRACE_MS);
    // Work in progress: a tenant, a meeting, and the events on their way through the outbox.
    const tenant = await createTenant(fixture.stack);
    const created = await fetch(`${fixture.stack.gatewayUrl}/api/v1/meeting`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "vanishing" }),
    });
    expect(created.status).toBe(200);

    const since = Date.now();
    const exits = (["meeting", "webhook", "gateway"] as const).map((service) =>
      fixture.stack.kill(service, "SIGTERM").then(() => [service, Date.now() - since] as const),
    );
    broker.kill();
    await Promise.all([database.vanish(), redis.vanish(), fixture.stack.kill("identity", "SIGKILL")]);
    const took = Object.fromEntries(await Promise.all(exits));
    for (const [service, ms] of Object.entries(took)) expect(ms, `${service} exited after ${ms} ms`).toBeLessThanOrEqual(EXITED_WITHIN_MS);
  });
});
