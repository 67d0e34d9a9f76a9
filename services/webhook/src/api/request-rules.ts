import { isSubscribableEventType, SUBSCRIBABLE_EVENT_TYPES } from "../event-types.ts";
import { webhookLimits } from "@svc/platform/contract";
import type { DeliveryCursor } from "../db/delivery-log.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
export function encodePageToken(cursor: DeliveryCursor): string {
  return Buffer.from(`${cursor.createdAtMicros}.${cursor.id}`).toString("base64url");
}

export function decodePageToken(token: string): DeliveryCursor | undefined {
  if (token.length > 200) return undefined;
  const match = /^(\d{1,20})\.([0-9a-f-]{36})$/i.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (!match || !UUID.test(match[2]!)) return undefined;
  return { createdAtMicros: match[1]!, id: match[2]!.toLowerCase() };
}
