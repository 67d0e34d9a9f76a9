import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateCommand, renderClientSchema, schemaPath } from "../../scripts/client/render.ts";

/**
 * @svc/client's types are generated from the gateway's OpenAPI document (scripts/client/); like
 * `check:generated` for protobuf, a committed copy that no longer matches the document fails.
 */
describe("client/src/schema.ts", () => {
  it(`is what ${generateCommand} writes from the gateway's OpenAPI document today`, async () => {
    expect(readFileSync(schemaPath, "utf8"), `client/src/schema.ts is stale: run ${generateCommand} and commit it`).toBe(await renderClientSchema());
  });
});
