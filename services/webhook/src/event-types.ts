// The catalog itself is part of the public contract (shared with the gateway's OpenAPI document).
import { EVENT_TYPE_DESCRIPTIONS, SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from "@svc/platform/contract";

export { EVENT_TYPE_DESCRIPTIONS, SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType };

export const TEST_EVENT_TYPE = "webhook.test";

export const isSubscribableEventType = (value: string): value is SubscribableEventType => Object.hasOwn(EVENT_TYPE_DESCRIPTIONS, value);
