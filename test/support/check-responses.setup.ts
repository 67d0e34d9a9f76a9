// Integration tests: wraps fetch so that every response from a test stack's gateway is checked
// against that gateway's OpenAPI document (test/support/openapi-responses.ts); a test that received
// an undocumented status or field fails.
import { afterEach, expect } from "vitest";
import { checkResponse, violations } from "./openapi-responses.ts";

const realFetch = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
  const response = await realFetch(input, init);
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request ? request.url : String(input));
  await checkResponse((init?.method ?? request?.method ?? "GET").toUpperCase(), url, response, realFetch);
  return response;
};

afterEach(() => {
  const found = violations.splice(0);
  expect(found, "responses that the OpenAPI document does not describe").toEqual([]);
});
