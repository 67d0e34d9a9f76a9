import { expect } from "vitest";
import type { Stack } from "./stack.ts";

/** An object schema of the document, as far as the shape check below reads it. */
export interface ObjectSchema {
  required: string[];
  properties: Record<string, unknown>;
}

/** The OpenAPI document a test stack's gateway serves (untyped: tests walk it by the names they document). */
export async function fetchOpenApiDocument(stack: Pick<Stack, "gatewayUrl">): Promise<any> {
  return (await fetch(`${stack.gatewayUrl}/api/v1/openapi.json`)).json();
}

/**
 * Shallow check of a body against the schema that documents it: every required field is present
 * and no field is undocumented. For bodies the response check cannot see (webhook payloads, fields
 * read before a response is validated); `what` names the body in a failure.
 */
export function expectDocumentedShape(schema: ObjectSchema, body: object, what = "body") {
  expect(Object.keys(body), `${what}: required fields`).toEqual(expect.arrayContaining(schema.required));
  expect(Object.keys(schema.properties), `${what}: documented fields`).toEqual(expect.arrayContaining(Object.keys(body)));
}
