// The meeting request bodies as the OpenAPI document describes them, read by a JSON Schema
// validator: a request the service accepts must be valid against its schema (API fuzzers such as
// schemathesis send schema-violating requests and fail a run when one is accepted).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document.ts";
import { openApiFragments } from "./fragments.ts";

const document = buildOpenApiDocument("https://svc.example", openApiFragments) as unknown as { components: { schemas: Record<string, unknown> } };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
const valid = (schemaName: string, body: unknown) => ajv.validate(`#/components/schemas/${schemaName}`, body);

describe("CreateMeetingRequest", () => {
  it("asks for a start beside a planned end, and for one way of giving it", () => {
    expect(valid("CreateMeetingRequest", { title: "t", start: "2031-01-01T10:00:00Z", duration: 30 })).toBe(true);
    expect(valid("CreateMeetingRequest", { title: "t", start: "2031-01-01T10:00:00Z", end: "2031-01-01T10:30:00Z" })).toBe(true);
    expect(valid("CreateMeetingRequest", { title: "t", duration: 30 })).toBe(false);
    expect(valid("CreateMeetingRequest", { title: "t", end: "2031-01-01T10:30:00Z" })).toBe(false);
    expect(valid("CreateMeetingRequest", { title: "t", start: "2031-01-01T10:00:00Z", end: "2031-01-01T10:30:00Z", duration: 30 })).toBe(false);
  });
});

describe("UpdateMeetingRequest", () => {
  it("takes `end` or `duration` alone, as the service does (they follow the meeting's own start)", () => {
    expect(valid("UpdateMeetingRequest", { duration: 45 })).toBe(true);
    expect(valid("UpdateMeetingRequest", { end: "2031-01-01T10:45:00Z" })).toBe(true);
    expect(valid("UpdateMeetingRequest", { end: null, duration: null })).toBe(true);
  });

  it("still refuses both ways of ending at once, and an update that names no field", () => {
    expect(valid("UpdateMeetingRequest", { end: "2031-01-01T10:45:00Z", duration: 45 })).toBe(false);
    expect(valid("UpdateMeetingRequest", {})).toBe(false);
    expect(valid("UpdateMeetingRequest", { unknown: 1 })).toBe(false);
    // A start sent as null beside a planned end leaves it nothing to follow (400 "end needs a start").
    expect(valid("UpdateMeetingRequest", { start: null, duration: 45 })).toBe(false);
    expect(valid("UpdateMeetingRequest", { start: null, end: "2031-01-01T10:45:00Z" })).toBe(false);
    expect(valid("UpdateMeetingRequest", { start: null, end: null })).toBe(true);
  });
});
