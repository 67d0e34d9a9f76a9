import { isSubscribableEventType, SUBSCRIBABLE_EVENT_TYPES } from "../event-types.ts";
import type { RequestCheck } from "@svc/platform";
import { parseOffsetDateTime, UUID, webhookLimits } from "@svc/platform/contract";
import type { CreationCursor } from "../webhook-stores.ts";

// Each rule records its problem on the request's RequestCheck (@svc/platform) and answers the value it read.

/** Most entries an `events` list may have before deduplication. */
export const MAX_EVENTS_ENTRIES = webhookLimits.eventsMax;

/** `events`: non-empty, known types only; answers them without duplicates. */
export function eventsOf(check: RequestCheck, events: string[]): string[] {
  if (events.length === 0) check.add(`events must be a non-empty array of event types (known: ${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`);
  else if (events.length > MAX_EVENTS_ENTRIES) check.add(`events must list at most ${MAX_EVENTS_ENTRIES} entries`);
  else {
    const unknown = [...new Set(events.filter((event) => !isSubscribableEventType(event)))];
    const shown = unknown.map((event) => JSON.stringify(event.length > 64 ? `${event.slice(0, 64)}…` : event)).join(", ");
    if (unknown.length > 0) check.add(`events contains unknown event types: ${shown} (known: ${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`);
  }
  return [...new Set(events)];
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = webhookLimits.pageSizeMax;

/** `pageSize`: 0 (unset) is the default; otherwise 1..max. */
export function pageSizeOf(check: RequestCheck, requested: number): number {
  if (requested === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    check.add(`pageSize must be between 1 and ${MAX_PAGE_SIZE}`);
    return DEFAULT_PAGE_SIZE;
  }
  return requested;
}

/** Page tokens are opaque to callers: base64url of `<created-at microseconds>.<delivery id>`. */
export function encodePageToken(cursor: CreationCursor): string {
  return Buffer.from(`${cursor.createdAtMicros}.${cursor.id}`).toString("base64url");
}

export function decodePageToken(token: string): CreationCursor | undefined {
  if (token.length > 200) return undefined;
  const match = /^(\d{1,20})\.([0-9a-f-]{36})$/i.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (!match || !UUID.test(match[2]!)) return undefined;
  return { createdAtMicros: match[1]!, id: match[2]!.toLowerCase() };
}

// Control characters and line/paragraph separators other than newline and tab: a description is
// text for people (and Postgres text cannot hold NUL).
const DESCRIPTION_FORBIDDEN = /[\p{Cc}\p{Zl}\p{Zp}](?<![\n\t])/u;

/** `description`: free text of at most `webhookLimits.descriptionMaxLength` characters, trimmed. */
export function descriptionOf(check: RequestCheck, value: string): string {
  const description = value.trim();
  if ([...description].length > webhookLimits.descriptionMaxLength) check.add(`description must be at most ${webhookLimits.descriptionMaxLength} characters`);
  else if (DESCRIPTION_FORBIDDEN.test(description)) check.add("description must not contain control characters other than newline and tab");
  return description;
}

/** `rateLimitPerSecond`: an integer 1..max deliveries per second. */
export function rateLimitOf(check: RequestCheck, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > webhookLimits.rateLimitPerSecondMax) {
    check.add(`rateLimitPerSecond must be an integer between 1 and ${webhookLimits.rateLimitPerSecondMax} (or null for no limit)`);
  }
  return value;
}

/** An optional ISO 8601 date-time with an offset, named `field` in the problem. */
export function dateTimeOf(check: RequestCheck, value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseOffsetDateTime(value);
  if (parsed.ok) return parsed.date;
  check.add(`${field} ${parsed.problem}`);
  return undefined;
}

/**
 * The window of a recovery: `since` required and at most `recoverWindowDays` ago, `until`
 * (default now) after it. Both are judged against `now`.
 */
export function recoveryWindowOf(check: RequestCheck, since: string, until: string | undefined, now: Date): { since: Date; until: Date } | undefined {
  if (since === "") {
    check.add("since is required (an ISO 8601 date-time with a UTC offset)");
    return undefined;
  }
  const problemsBefore = check.problems.length;
  const from = dateTimeOf(check, since, "since");
  const to = dateTimeOf(check, until, "until");
  if (check.problems.length > problemsBefore || !from) return undefined;
  const end = to ?? now;
  const oldest = new Date(now.getTime() - webhookLimits.recoverWindowDays * 24 * 3600_000);
  if (from < oldest) check.add(`since must be at most ${webhookLimits.recoverWindowDays} days ago`);
  if (end <= from) check.add("until must be after since");
  return check.problems.length > problemsBefore ? undefined : { since: from, until: end };
}
