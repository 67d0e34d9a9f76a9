import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { documentPath, generateCommand, renderClientSchema, renderOpenApiDocument, schemaPath } from "../../scripts/client/render.ts";

/**
 * The committed REST contract (client/openapi.json) and @svc/client's types generated from it
 * (scripts/client/); like `check:generated` for protobuf, a committed copy that no longer matches
 * what the gateway serves fails.
 */
describe("client/openapi.json", () => {
  it(`is the document the gateway serves today, as ${generateCommand} writes it`, () => {
    expect(readFileSync(documentPath, "utf8"), `client/openapi.json is stale: run ${generateCommand} and commit it`).toBe(renderOpenApiDocument());
  });
});

describe("client/src/schema.ts", () => {
  it(`is what ${generateCommand} writes from the gateway's OpenAPI document today`, async () => {
    expect(readFileSync(schemaPath, "utf8"), `client/src/schema.ts is stale: run ${generateCommand} and commit it`).toBe(await renderClientSchema());
  });
});
