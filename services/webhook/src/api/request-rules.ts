import { isSubscribableEventType, SUBSCRIBABLE_EVENT_TYPES } from "../event-types.ts";
import { parseOffsetDateTime, UUID, webhookLimits } from "@svc/platform/contract";
import type { CreationCursor } from "../db/creation-cursor.ts";

export function uuidOrProblem(value: string, field: string): { id?: string; problem?: string } {
  if (!UUID.test(value)) return { problem: `${field} must be a UUID` };
  return { id: value.toLowerCase() };
}

/** Most entries an `events` list may have before deduplication. */
export const MAX_EVENTS_ENTRIES = webhookLimits.eventsMax;

/** `events`: non-empty, known types only (duplicates are fine and are removed). */
export function eventsProblems(events: string[]): string[] {
  if (events.length === 0) return [`events must be a non-empty array of event types (known: ${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`];
  if (events.length > MAX_EVENTS_ENTRIES) return [`events must list at most ${MAX_EVENTS_ENTRIES} entries`];
  const unknown = [...new Set(events.filter((event) => !isSubscribableEventType(event)))];
  if (unknown.length === 0) return [];
  const shown = unknown.map((event) => JSON.stringify(event.length > 64 ? `${event.slice(0, 64)}…` : event)).join(", ");
  return [`events contains unknown event types: ${shown} (known: ${SUBSCRIBABLE_EVENT_TYPES.join(", ")})`];
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = webhookLimits.pageSizeMax;

export function pageSizeOrProblem(requested: number): { size: number; problem?: string } {
  if (requested === 0) return { size: DEFAULT_PAGE_SIZE };
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    return { size: DEFAULT_PAGE_SIZE, problem: `pageSize must be between 1 and ${MAX_PAGE_SIZE}` };
  }
  return { size: requested };
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
export function descriptionOrProblem(value: string): { description: string; problem?: string } {
  const description = value.trim();
  if ([...description].length > webhookLimits.descriptionMaxLength) {
    return { description, problem: `description must be at most ${webhookLimits.descriptionMaxLength} characters` };
  }
  if (DESCRIPTION_FORBIDDEN.test(description)) return { description, problem: "description must not contain control characters other than newline and tab" };
  return { description };
}

/** `rateLimitPerSecond`: an integer 1..max deliveries per second. */
export function rateLimitProblem(value: number): string | undefined {
  if (!Number.isInteger(value) || value < 1 || value > webhookLimits.rateLimitPerSecondMax) {
    return `rateLimitPerSecond must be an integer between 1 and ${webhookLimits.rateLimitPerSecondMax} (or null for no limit)`;
  }
  return undefined;
}

/** An optional ISO 8601 date-time with an offset, named `field` in the problem. */
export function dateTimeOrProblem(value: string | undefined, field: string): { date?: Date; problem?: string } {
  if (value === undefined) return {};
  const parsed = parseOffsetDateTime(value);
  return parsed.ok ? { date: parsed.date } : { problem: `${field} ${parsed.problem}` };
}

/**
 * The window of a recovery: `since` required and at most `recoverWindowDays` ago, `until`
 * (default now) after it. Both are judged against `now`.
 */
export function recoveryWindowOrProblems(since: string, until: string | undefined, now: Date): { since?: Date; until?: Date; problems: string[] } {
  if (since === "") return { problems: ["since is required (an ISO 8601 date-time with a UTC offset)"] };
  const from = dateTimeOrProblem(since, "since");
  const to = dateTimeOrProblem(until, "until");
  const problems = [from.problem, to.problem].filter((p): p is string => p !== undefined);
  if (problems.length > 0) return { problems };
  const end = to.date ?? now;
  const oldest = new Date(now.getTime() - webhookLimits.recoverWindowDays * 24 * 3600_000);
  if (from.date! < oldest) problems.push(`since must be at most ${webhookLimits.recoverWindowDays} days ago`);
  if (end <= from.date!) problems.push("until must be after since");
  return problems.length > 0 ? { problems } : { since: from.date!, until: end, problems };
}
