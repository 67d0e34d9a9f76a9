// Without Redis every replica keeps its own credential cache, revocation markers, rate-limit buckets
// and sign-in counters: a revoked key stays valid on the other replicas and limits multiply. The
// chart's values schema therefore refuses more than one replica of any component without Redis.
import { describe, expect, it } from "vitest";
import { components, find, renderChart, type Component } from "./chart.ts";

const componentNames = Object.keys(components) as Component[];
const withRedisUrl = ["--set", "externalRedis.url=redis://redis-master.redis:6379"];
const withRedisSecret = ["--set", "externalRedis.existingSecret=svc-redis"];

/** The error Helm reports when the values fail the schema, or "rendered". */
const outcome = (extraArgs: string[]) =>
  renderChart("(defaults)", extraArgs).then(
    () => "rendered",
    (error: { stderr?: string }) => String(error.stderr ?? error),
  );

describe("values schema: Redis whenever a component may run more than one replica", () => {
  it(
    "the default values run one replica of each component, without Redis",
    async () => {
      const objects = await renderChart("(defaults)");
      for (const component of componentNames) expect(find(objects, "Deployment", `svc-${component}`).spec.replicas, component).toBe(1);
    },
    15 * 60_000,
  );

  it.each(componentNames)(
    "refuses %s.replicaCount=2 without externalRedis, and renders it with a Redis URL or Secret",
    async (component) => {
      const twoReplicas = ["--set", `${component}.replicaCount=2`];
      expect(await outcome(twoReplicas)).toMatch(/values don't meet the specifications of the schema.*[\s\S]*externalRedis/);
      expect(await outcome([...twoReplicas, ...withRedisUrl])).toBe("rendered");
      expect(await outcome([...twoReplicas, ...withRedisSecret])).toBe("rendered");
    },
    120_000,
  );

  it.each(componentNames)(
    "refuses %s.autoscaling.enabled (several replicas at the autoscaler's will) without externalRedis",
    async (component) => {
      const autoscaled = ["--set", `${component}.autoscaling.enabled=true`];
      expect(await outcome(autoscaled)).toMatch(/externalRedis/);
      expect(await outcome([...autoscaled, ...withRedisUrl])).toBe("rendered");
    },
    120_000,
  );

  it("still accepts zero or one replica without Redis", async () => {
    expect(await outcome(["--set", "gateway.replicaCount=0", "--set", "identity.replicaCount=1"])).toBe("rendered");
  }, 60_000);
});
