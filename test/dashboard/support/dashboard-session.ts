import type { Stack } from "../../support/stack.ts";

/**
 * A dashboard session as a browser holds it: the cookies the gateway set at sign-in, and the
 * CSRF token the page copies from its cookie into X-CSRF-Token. `call` sends both (or, with
 * `csrf: false`, only the cookie, as a cross-site request would).
 */
export interface DashboardSession {
  cookieHeader: string;
  csrfToken: string;
  setCookies: string[];
  body: Record<string, unknown>;
  call(method: string, path: string, body?: unknown, options?: { csrf?: boolean | string }): Promise<{ status: number; body: any; headers: Headers }>;
}

export async function signInApi(stack: Stack, email: string, password: string, path = "/api/v1/session", extra: Record<string, string> = {}) {
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password, ...extra }),
  });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
}

export function sessionFrom(stack: Stack, headers: Headers, body: Record<string, unknown>): DashboardSession {
  const setCookies = headers.getSetCookie();
  const pairs = setCookies.map((cookie) => cookie.split(";")[0]!);
  const cookieHeader = pairs.join("; ");
  const csrfToken = pairs.find((pair) => pair.startsWith("svc_csrf="))!.slice("svc_csrf=".length);
  return {
    cookieHeader,
    csrfToken,
    setCookies,
    body,
    async call(method, path, payload, options = {}) {
      const headers: Record<string, string> = { cookie: cookieHeader };
      const csrf = options.csrf ?? true;
      if (csrf !== false) headers["x-csrf-token"] = csrf === true ? csrfToken : csrf;
      if (payload !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(`${stack.gatewayUrl}/api/v1${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
    },
  };
}

export async function openSession(stack: Stack, email: string, password: string): Promise<DashboardSession> {
  const { status, body, headers } = await signInApi(stack, email, password);
  if (status !== 200) throw new Error(`sign-in failed: ${status} ${JSON.stringify(body)}`);
  return sessionFrom(stack, headers, body);
}

/** A call with a Bearer token (API key or OAuth access token) instead of a session. */
export async function bearerCall(stack: Stack, token: string, method: string, path: string, payload?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (payload !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.gatewayUrl}/api/v1${path}`, { method, headers, ...(payload === undefined ? {} : { body: JSON.stringify(payload) }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
