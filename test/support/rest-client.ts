import type { Stack } from "./stack.ts";

export interface CallOptions {
  /** An API key or OAuth access token, sent as `Authorization: Bearer`; no Authorization header without it. */
  key?: string;
  /** A Cookie header, as a browser holding a dashboard session sends it. */
  cookie?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (malformed JSON, another media type); wins over `body`. */
  rawBody?: string;
  /** The Content-Type of a body (default application/json); no Content-Type without a body. */
  contentType?: string;
  /** Further headers (Idempotency-Key, X-CSRF-Token …), applied last. */
  headers?: Record<string, string>;
}

/** The REST API of a test stack's gateway: paths such as `/meeting` are relative to it. */
export const apiBase = (stack: Pick<Stack, "gatewayUrl">) => `${stack.gatewayUrl}/api/v1`;

/**
 * One REST call as a client of the platform makes it, returning the fetch Response untouched so a
 * test can assert on status, headers and body. It goes through the global fetch, so the OpenAPI
 * response check of the integration tests (check-responses.setup.ts) sees it.
 */
export function callApi(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
    ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
    ...(body === undefined ? {} : { "content-type": options.contentType ?? "application/json" }),
    ...options.headers,
  };
  return fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
}

/** Status, headers and the body parsed as JSON (text when it is not JSON; undefined when empty). */
export async function readResponse(response: Response): Promise<{ status: number; body: any; headers: Headers }> {
  const text = await response.text();
  return { status: response.status, body: text ? parsedOrText(text) : undefined, headers: response.headers };
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
