import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateCommand, referencePath, renderConfigurationReference } from "../../scripts/config-reference/render.ts";

/**
 * docs/configuration.md is generated from the processes' configuration schemas and their JSDoc
 * (scripts/config-reference/); like `check:generated` for protobuf, a stale committed copy fails.
 */
describe("docs/configuration.md", () => {
  it(`is what ${generateCommand} writes from the code today`, () => {
    const committed = readFileSync(referencePath, "utf8");
    const generated = renderConfigurationReference();
    expect(committed, `docs/configuration.md is stale: run ${generateCommand} and commit it`).toBe(generated);
  });

  it("names every variable the Kafka-using services and the gateway read, each with a meaning", () => {
    const rows = renderConfigurationReference()
      .split("\n")
      .filter((line) => line.startsWith("| `"));
    for (const variable of [
      "DATABASE_URL",
      "WEBHOOK_CIRCUIT_BREAKER_TIMEOUTS",
      "WEBHOOK_PER_ORG_CONCURRENCY",
      "WEBHOOK_RETENTION_DAYS",
      "KAFKA_TLS",
      "RATE_LIMIT_PER_SECOND",
      "SVC_ADMIN_TOKEN",
    ]) {
      const row = rows.find((line) => line.startsWith(`| \`${variable}\` |`));
      expect(row, variable).toBeDefined();
      expect(row!.split(" | ").at(-1)!.replace(/ \|$/, "").length, `${variable} has a meaning`).toBeGreaterThan(10);
    }
  });
});
