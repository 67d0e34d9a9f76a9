import type { Stack } from "../../support/stack.ts";
import { apiBase, callApi, readResponse } from "../../support/rest-client.ts";

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
  const response = await callApi(stack.gatewayUrl, "POST", path, { body: { email, password, ...extra } });
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
    async call(method, path, body, options = {}) {
      const csrf = options.csrf ?? true;
      const headers: Record<string, string> = csrf === false ? {} : { "x-csrf-token": csrf === true ? csrfToken : csrf };
      return readResponse(await callApi(apiBase(stack), method, path, { cookie: cookieHeader, headers, body }));
    },
  };
}

export async function openSession(stack: Stack, email: string, password: string): Promise<DashboardSession> {
  const { status, body, headers } = await signInApi(stack, email, password);
  if (status !== 200) throw new Error(`sign-in failed: ${status} ${JSON.stringify(body)}`);
  return sessionFrom(stack, headers, body);
}

/** A call with a Bearer token (API key or OAuth access token) instead of a session. */
export async function bearerCall(stack: Stack, token: string, method: string, path: string, body?: unknown) {
  const { status, body: answer } = await readResponse(await callApi(apiBase(stack), method, path, { key: token, body }));
  return { status, body: answer };
}
