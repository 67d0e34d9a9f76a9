import net from "node:net";
import { withoutTracePropagation } from "@svc/platform";
import { Agent, request } from "undici";
import { signedHeaders } from "../signing/signing-secret.ts";
import { parseRetryAfter } from "./retry-policy.ts";
import { guardedLookup, refusalFor, TargetRefusedError } from "./target-policy.ts";

/** What happened on one attempt: exactly what goes into the attempt log. */
export interface AttemptOutcome {
  attemptedAt: Date;
  succeeded: boolean;
  /** The response status; undefined when no response arrived. */
  statusCode?: number;
  latencyMs: number;
  /** Why it failed, in words; undefined on success. */
  error?: string;
  /** The first bytes of the response body as text (at most 1 KB). */
  responseExcerpt: string;
  timedOut: boolean;
  retryAfterSeconds?: number;
}

export interface OutgoingMessage {
  url: string;
  /** The webhook-id header: the delivery's id, stable across attempts. */
  messageId: string;
  /** The stored JSON body, sent byte for byte. */
  body: string;
  /** The HMAC keys (decoded signing secrets): the current one, and during a rotation's grace window the previous. */
  signingKeys: readonly Buffer[];
}

export interface HttpSender {
  send(message: OutgoingMessage, signal?: AbortSignal): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

export const USER_AGENT = "svc-webhooks/1.0 (+https://www.standardwebhooks.com)";
export const EXCERPT_BYTES = 1024;
// undici's timer resolution (its lib/util/timers.js RESOLUTION_MS): how early its timeouts may fire.
const UNDICI_TIMER_RESOLUTION_MS = 1_000;

// Bytes of a response body read (and thrown away) to keep the connection reusable; a larger body
// costs its connection instead.
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Sends signed webhook requests (Standard Webhooks headers, a fresh timestamp and signature per
 * attempt). Redirects are never followed (a 3xx is a failure), the whole exchange must finish
 * within `timeoutMs`, and every connection goes through the SSRF guard's lookup, so the address
 * that was checked is the address connected to. Connections are kept alive and reused.
 */
export function createHttpSender(options: { timeoutMs: number; allowPrivateTargets: boolean }): HttpSender {
  // The attempt's deadline is our own timer (below), exact to the millisecond. undici's own
  // timeouts run on its coarse timers, which may fire up to half a second early (a timer counts
  // from the last tick: seen as "timed out after 800 ms" after 663 ms), so they only back ours up.
  const backstopMs = options.timeoutMs + UNDICI_TIMER_RESOLUTION_MS;
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.allowPrivateTargets), timeout: backstopMs },
    headersTimeout: backstopMs,
    bodyTimeout: backstopMs,
    keepAliveTimeout: 4_000,
  });

  async function send(message: OutgoingMessage, outerSignal?: AbortSignal): Promise<AttemptOutcome> {
    const attemptedAt = new Date();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (error: string, timedOut = false): AttemptOutcome => ({
      attemptedAt,
      succeeded: false,
      latencyMs: elapsed(),
      error,
      responseExcerpt: "",
      timedOut,
    });

    const url = new URL(message.url);
    // Literal IP hosts never reach the lookup, so they are judged here.
    const literalHost = url.hostname.replace(/^\[|\]$/g, "");
    if (net.isIP(literalHost)) {
      const refusal = refusalFor(literalHost, options.allowPrivateTargets);
      if (refusal) return failure(`target refused: ${refusal}`);
    }

    // One controller and one timer per attempt (cheaper than AbortSignal.timeout + any on the hot path).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs);
    const abandon = () => controller.abort();
    outerSignal?.addEventListener("abort", abandon, { once: true });
    const signal = controller.signal;
    try {
      // A customer's endpoint gets no traceparent, tracestate or baggage: the trace (and whatever
      // baggage a caller managed to attach) stays inside the platform.
      const response = await withoutTracePropagation(() =>
        request(url, {
          dispatcher: agent,
          method: "POST",
          headers: {
            ...signedHeaders(message.signingKeys, message.messageId, message.body, attemptedAt),
            "content-type": "application/json",
            "user-agent": USER_AGENT,
          },
          body: message.body,
          signal,
        }),
      );
      const excerpt = await readExcerpt(response.body);
      const statusCode = response.statusCode;
      const succeeded = statusCode >= 200 && statusCode < 300;
      const header = (name: string) => {
        const value = response.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      const retryAfterSeconds = succeeded ? undefined : parseRetryAfter(header("retry-after"));
      return {
        attemptedAt,
        succeeded,
        statusCode,
        latencyMs: elapsed(),
        ...(succeeded ? {} : { error: statusCode >= 300 && statusCode < 400 ? `redirect (HTTP ${statusCode}) not followed` : `HTTP ${statusCode}` }),
        responseExcerpt: excerpt,
        timedOut: false,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      };
    } catch (error) {
      // Our timer, or undici's backstop should ours not have fired: one message either way.
      if (timedOut || isTimeout(error)) return failure(`timed out after ${options.timeoutMs} ms`, true);
      if (outerSignal?.aborted) return failure("abandoned: the dispatcher is shutting down");
      return failure(describeError(error));
    } finally {
      clearTimeout(timer);
      outerSignal?.removeEventListener("abort", abandon);
    }
  }

  return { send, close: () => agent.close() };
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  for await (const chunk of body) {
    if (keptBytes < EXCERPT_BYTES) {
      const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    readBytes += chunk.length;
    if (readBytes > DRAIN_LIMIT_BYTES) {
      body.destroy();
      break;
    }
  }
  return excerptText(Buffer.concat(kept));
}

/** At most EXCERPT_BYTES of UTF-8 text, without a broken last character or NUL bytes (Postgres text refuses them). */
export function excerptText(bytes: Buffer): string {
  let text = bytes
    .subarray(0, EXCERPT_BYTES)
    .toString("utf8")
    .replace(/\u0000/g, "");
  // A multi-byte character cut at the limit decodes as U+FFFD; drop it rather than store it.
  if (bytes.length >= EXCERPT_BYTES) text = text.replace(/\uFFFD+$/, "");
  while (Buffer.byteLength(text) > EXCERPT_BYTES) text = text.slice(0, -1);
  return text;
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current && chain.length < 5; current = (current as { cause?: unknown }).cause) chain.push(current);
  return chain;
}

function isTimeout(error: unknown): boolean {
  return causes(error).some((e) => {
    const code = (e as { code?: string }).code;
    return (
      code === "UND_ERR_CONNECT_TIMEOUT" ||
      code === "UND_ERR_HEADERS_TIMEOUT" ||
      code === "UND_ERR_BODY_TIMEOUT" ||
      code === "ETIMEDOUT" ||
      (e as Error).name === "TimeoutError"
    );
  });
}

function describeError(error: unknown): string {
  const chain = causes(error);
  const refused = chain.find((e): e is TargetRefusedError => e instanceof TargetRefusedError);
  if (refused) return `target refused: ${refused.message}`;
  for (const e of chain) {
    const code = (e as { code?: string }).code;
    if (code && !code.startsWith("UND_ERR")) return `${(e as Error).message || code}`.slice(0, 300);
  }
  return ((error as Error).message || "request failed").slice(0, 300);
}
