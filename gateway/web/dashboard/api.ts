import type { components } from "@svc/client";

/**
 * A schema of the REST API as @svc/client's types give it (generated from the OpenAPI document the
 * gateway serves): the dashboard declares no answer shapes of its own, so a change to the API that
 * the pages do not follow fails the type check.
 */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

/**
 * The dashboard's only way to the server: the documented REST API under /api/v1, with the
 * session cookie (sent by the browser) and the CSRF token copied from its cookie into the
 * X-CSRF-Token header on every call. The page holds no rule: it shows the API's answers.
 */
export interface ApiResult<T = any> {
  ok: boolean;
  status: number;
  body: T;
  /** The API's error message (or a network problem in words). */
  error: string;
}

function csrfToken(): string {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === "svc_csrf" || name === "__Host-svc_csrf") return value.join("=");
  }
  return "";
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = csrfToken();
  if (token) headers["x-csrf-token"] = token;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      credentials: "same-origin",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    return { ok: false, status: 0, body: undefined as T, error: "The server could not be reached. Check your connection and try again." };
  }
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  // A read of a cancelled meeting's records answers 410 Gone with its final state (docs/api.md,
  // "Cancelling"): the pages show it like any other answer.
  const ok = response.ok || (method === "GET" && response.status === 410);
  const error = ok ? "" : typeof parsed?.error === "string" ? parsed.error : `The request failed (HTTP ${response.status}).`;
  return { ok, status: response.status, body: parsed as T, error };
}
