// What the API answers for a webhook and its delivery log (the fields the dashboard shows).

export interface Webhook {
  webhookId: string;
  url: string;
  events: string[];
  createdAt: string;
  disabled: boolean;
  disabledAt?: string;
  disabledReason?: string;
}
export interface Attempt {
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string;
}
export interface Delivery {
  deliveryId: string;
  eventType: string;
  status: string;
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}
