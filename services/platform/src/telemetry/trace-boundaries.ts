import { context, createContextKey, type Context, type TextMapGetter, type TextMapPropagator, type TextMapSetter } from "@opentelemetry/api";
import type { IncomingMessage } from "node:http";

/**
 * Where a trace may cross the system's edge, and where it may not (issue 33, finding 6).
 *
 * - In: a plain-HTTP request (the gateway's public listener, identity's OAuth listener behind it,
 *   the media server's webhooks) starts a fresh trace. A caller's `traceparent` could otherwise
 *   force sampling and pick trace ids, and its `baggage` would be stored with the events the
 *   request causes and sent on. Internal hops (Connect RPCs, Kafka messages, stored event
 *   context) carry their context as before.
 * - Out: nothing is injected into a request made under `withoutTracePropagation` (webhook
 *   deliveries to customers' endpoints): the trace and its baggage stay inside.
 * - Attributes: query strings are redacted from the URL attributes of every span, and so are the
 *   secrets some paths carry (withoutPathSecrets), from those attributes and span names
 *   (redactQueryStrings).
 */

/** Header objects of inbound plain-HTTP requests, marked as they arrive (see markUntrustedInbound). */
const untrustedCarriers = new WeakSet<object>();
const NO_PROPAGATION = createContextKey("svc: do not propagate this context out");

/**
 * For the HTTP instrumentation's `startIncomingSpanHook`, which runs before it extracts the
 * caller's context from the request's headers: marks them so the propagator ignores them. Adds
 * no attribute.
 */
export function markUntrustedInbound(request: IncomingMessage | { headers?: unknown }): Record<string, never> {
  if (typeof request.headers === "object" && request.headers !== null) untrustedCarriers.add(request.headers);
  return {};
}

/** Runs `work` (say, a request to a customer's endpoint) so that no trace context or baggage is sent with it. */
export function withoutTracePropagation<T>(work: () => T): T {
  return context.with(context.active().setValue(NO_PROPAGATION, true), work);
}

/** `inner`, except that it extracts nothing from untrusted inbound headers and injects nothing where propagation is off. */
export function boundedPropagator(inner: TextMapPropagator): TextMapPropagator {
  return {
    inject(active: Context, carrier: unknown, setter: TextMapSetter) {
      if (active.getValue(NO_PROPAGATION) === true) return;
      inner.inject(active, carrier, setter);
    },
    extract(active: Context, carrier: unknown, getter: TextMapGetter) {
      if (typeof carrier === "object" && carrier !== null && untrustedCarriers.has(carrier)) return active;
      return inner.extract(active, carrier, getter);
    },
    fields: () => inner.fields(),
  };
}

/** Span attributes that hold a URL, its path or its query (current and older HTTP semantic conventions). */
const URL_ATTRIBUTES = ["url.full", "http.url", "url.original", "http.target"] as const;
const PATH_ATTRIBUTES = [...URL_ATTRIBUTES, "url.path", "http.route"] as const;

/**
 * Paths whose segment after the prefix is a bearer secret: a recording's signed download link
 * (`/recording-downloads/<token>`, valid up to 7 days) is the only credential needed for the
 * file, so it must not reach access logs nor traces.
 */
const SECRET_PATH_SEGMENT = /(\/recording-downloads\/)[^/?#]+/g;

/** The URL or path with the secret segments of its path replaced by a marker. */
export function withoutPathSecrets(value: string): string {
  return value.replace(SECRET_PATH_SEGMENT, `$1${REDACTED_QUERY}`);
}
const QUERY_ATTRIBUTES = ["url.query"] as const;
export const REDACTED_QUERY = "REDACTED";

/** The URL (absolute, or a path) with its query string and fragment replaced by a marker. */
export function withoutQuery(value: string): string {
  const cut = value.search(/[?#]/);
  return cut < 0 ? value : `${value.slice(0, cut)}?${REDACTED_QUERY}`;
}

interface AttributeSpan {
  attributes: Record<string, unknown>;
  setAttribute(key: string, value: string): unknown;
  name?: string;
  updateName?(name: string): unknown;
}

/**
 * A span processor (onStart) that redacts the query string of every URL attribute (a
 * subscriber's URL can carry a token in its query, `?token=…`, and so can a browser's request),
 * and the secret segments of paths (withoutPathSecrets) from URL attributes and the span's name.
 */
export const redactQueryStrings = {
  onStart(span: AttributeSpan): void {
    for (const key of URL_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value === "string" && /[?#]/.test(value)) span.setAttribute(key, withoutQuery(value));
    }
    for (const key of PATH_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value === "string" && value.includes("/recording-downloads/")) span.setAttribute(key, withoutPathSecrets(value));
    }
    if (span.name?.includes("/recording-downloads/")) span.updateName?.(withoutPathSecrets(span.name));
    for (const key of QUERY_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value === "string" && value !== "") span.setAttribute(key, REDACTED_QUERY);
    }
  },
  onEnd(): void {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
