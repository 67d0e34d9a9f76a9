/**
 * The event catalog. Subscribers may register for these types; anything else is refused at
 * registration. `webhook.test` is not subscribable: it is only sent on request to one endpoint.
 */
export const SUBSCRIBABLE_EVENT_TYPES = ["meeting.ended"] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = "webhook.test";

export const isSubscribableEventType = (value: string): value is SubscribableEventType =>
  (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(value);
