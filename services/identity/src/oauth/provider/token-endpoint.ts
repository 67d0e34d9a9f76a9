import { IncomingMessage } from "node:http";
import type { Middleware } from "koa";
import { OAUTH_PATHS } from "@svc/platform/contract";

/** oidc-provider's own limit for form bodies, kept for JSON ones. */
const BODY_LIMIT_BYTES = 56 * 1024;

const CLIENT_FACING = new Set<string>([OAUTH_PATHS.token, OAUTH_PATHS.revocation]);

/**
 * Shapes the two endpoints applications call directly (token and revocation), around
 * oidc-provider, which handles them:
 * - a JSON body is accepted as well as a form-encoded one (the specification allows both;
 *   oidc-provider reads only forms, so the JSON object is handed on as the equivalent form);
 * - errors are always JSON, never the HTML page oidc-provider renders for browsers;
 * - `token_type` is the specification's lowercase `bearer` (RFC 6749 §5.1: case-insensitive).
 * Runs after the alias rewrite, so it sees canonical paths.
 */
export const shapeTokenEndpoints: Middleware = async (ctx, next) => {
  if (!CLIENT_FACING.has(ctx.path)) return next();
  ctx.request.headers.accept = "application/json";
  if (ctx.method === "POST" && ctx.is("application/json")) {
    const fields = await readJsonFields(ctx.req);
    if (typeof fields === "string") {
      ctx.status = 400;
      ctx.body = { error: "invalid_request", error_description: fields };
      return;
    }
    ctx.req = ctx.request.req = ctx.response.req = formEncodedRequest(ctx.req, fields);
  }
  await next();
  const body = ctx.body as { token_type?: unknown } | undefined;
  if (ctx.path === OAUTH_PATHS.token && ctx.status === 200 && typeof body?.token_type === "string") {
    body.token_type = body.token_type.toLowerCase();
  }
};

/** The JSON object's fields as strings, or a message saying why the body is not acceptable. */
async function readJsonFields(req: NodeJS.ReadableStream): Promise<Record<string, string> | string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) return "request body too large";
    chunks.push(chunk as Buffer);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return "request body is not valid JSON";
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "request body must be a JSON object";
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== "string") return `parameter ${name} must be a string`;
    fields[name] = value;
  }
  return fields;
}

/**
 * The same request with the fields as an application/x-www-form-urlencoded body, for
 * oidc-provider to read as it reads any form (its fallback for bodies parsed upstream works too,
 * but warns on stderr that it is not recommended).
 */
function formEncodedRequest(original: IncomingMessage, fields: Record<string, string>): IncomingMessage {
  const body = Buffer.from(new URLSearchParams(fields).toString(), "utf8");
  const request = new IncomingMessage(original.socket);
  request.method = original.method;
  request.url = original.url;
  request.httpVersion = original.httpVersion;
  request.httpVersionMajor = original.httpVersionMajor;
  request.httpVersionMinor = original.httpVersionMinor;
  const { "transfer-encoding": _chunked, ...headers } = original.headers;
  request.headers = { ...headers, "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) };
  // Complete from the start: an incomplete message destroys its socket when it is destroyed.
  request.complete = true;
  request.push(body);
  request.push(null);
  return request;
}
