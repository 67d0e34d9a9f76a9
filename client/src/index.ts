// @svc/client: the typed client of the svc REST API. Its types (schema.ts) are generated from the
// OpenAPI document the gateway serves (`npm run generate:client`); the calls are openapi-fetch's,
// so every path, parameter, body and answer is checked by the compiler against the document.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./schema.ts";

export type { components, operations, paths } from "./schema.ts";

export interface SvcClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** The gateway's origin, for example `https://meet-api.example.com` (its `PUBLIC_URL`). */
  origin: string;
  /** An API key (`svc_…`) or an OAuth access token (`svc_oauth_…`), sent as `Authorization: Bearer`. */
  token?: string;
}

export type SvcClient = Client<paths>;

/**
 * A client of `<origin>/api/v1`: `client.POST("/meeting", { body: { title: "Weekly sync" } })`
 * answers `{ data, error, response }`, `data` typed by the operation's success schema and `error`
 * by its error schema (`{ error, requestId }`).
 */
export function createSvcClient({ origin, token, headers, ...options }: SvcClientOptions): SvcClient {
  return createClient<paths>({
    ...options,
    baseUrl: `${origin.replace(/\/+$/, "")}/api/v1`,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string> | undefined) },
  });
}
