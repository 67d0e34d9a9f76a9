import { h, replaceChildren } from "../../shared/dom.ts";
import { api, loadInto, type Schema } from "../app-shell.ts";
import { time } from "../widgets.ts";

type Webhook = Schema<"Webhook">;
type Delivery = Schema<"Delivery">;

/** How soon a pending delivery must be due for the open log to follow it, and how often it looks. */
const FOLLOW_WINDOW_MS = 60_000;
const FOLLOW_INTERVAL_MS = 1_500;

export const statusLabel: Record<string, string> = { pending: "Pending", succeeded: "Delivered", failed: "Failed", cancelled: "Cancelled" };

/** The card's "Last delivery": the newest delivery's status and time. */
export const showLastDelivery = (into: HTMLElement, last: Delivery | undefined) =>
  replaceChildren(into, last ? [statusLabel[last.status] ?? last.status, " · ", time(last.createdAt)] : "None yet");

export interface DeliveryLogOptions {
  /** Admins may redeliver. */
  admin: boolean;
  /** Shows the API's answer to an action above the page's content. */
  say(result: { ok: boolean; error: string }, success: string): void;
}

/** Opens (or refreshes) a webhook's delivery log in `container`; the card's last delivery follows what it shows. */
export function openDeliveryLog(webhook: Webhook, container: HTMLElement, lastDelivery: HTMLElement, options: DeliveryLogOptions): Promise<void> {
  const fetchLog = () => api<Schema<"DeliveryPage">>("GET", `/webhook/${webhook.webhookId}/deliveries?pageSize=20`);
  // A delivery sent within the minute (a redelivery, a retry coming up) changes this log
  // on its own: follow it quietly, without the loading state, while the log is on screen.
  let follow: ReturnType<typeof setTimeout> | undefined;
  const followPending = (deliveries: Delivery[]) => {
    clearTimeout(follow);
    const dueSoon = deliveries.some(
      (delivery) => delivery.status === "pending" && (delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) - Date.now() < FOLLOW_WINDOW_MS),
    );
    if (!dueSoon) return;
    follow = setTimeout(async () => {
      if (!container.isConnected) return;
      const result = await fetchLog();
      if (result.ok && container.isConnected) replaceChildren(container, render(result.body));
    }, FOLLOW_INTERVAL_MS);
  };
  const load = () => loadInto(container, fetchLog, render);
  const redeliver = async (delivery: Delivery) => {
    options.say(
      await api("POST", `/webhook/${webhook.webhookId}/deliveries/${delivery.deliveryId}/retry`),
      "Redelivery scheduled: it is sent now with the same webhook-id.",
    );
    await load();
  };
  const render = ({ deliveries }: Schema<"DeliveryPage">) => {
    followPending(deliveries);
    showLastDelivery(lastDelivery, deliveries[0]);
    return deliveries.length === 0
      ? h("p", { class: "empty" }, "No deliveries yet. They appear here when an event is sent.")
      : h(
          "ol",
          { class: "deliveries", "aria-label": `Deliveries to ${webhook.url}` },
          deliveries.map((delivery) => deliveryRow(webhook, delivery, options.admin ? () => void redeliver(delivery) : undefined)),
        );
  };
  return load();
}

/** One delivery: its event, status, time and webhook-id, the Redeliver button (admins), and its attempts. */
function deliveryRow(webhook: Webhook, delivery: Delivery, redeliver: (() => void) | undefined) {
  return h(
    "li",
    { class: `delivery ${delivery.status}` },
    h(
      "div",
      { class: "delivery-head" },
      h("code", {}, delivery.eventType),
      h(
        "span",
        { class: `badge ${delivery.status === "succeeded" ? "on" : delivery.status === "pending" ? "wait" : "off"}` },
        statusLabel[delivery.status] ?? delivery.status,
      ),
      time(delivery.createdAt),
      h("span", { class: "muted" }, `webhook-id ${delivery.deliveryId}`),
      redeliver
        ? h(
            "button",
            {
              type: "button",
              class: "secondary",
              disabled: webhook.disabled,
              "aria-label": `Redeliver ${delivery.eventType} ${delivery.deliveryId}`,
              onclick: redeliver,
            },
            "Redeliver",
          )
        : null,
    ),
    attemptsTable(delivery.attempts),
  );
}

function attemptsTable(attempts: Schema<"DeliveryAttempt">[]) {
  return h(
    "table",
    { class: "attempts" },
    h("caption", {}, `Attempts (${attempts.length})`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Time", "Response", "Latency", "Error"].map((label) => h("th", { scope: "col" }, label)),
      ),
    ),
    h(
      "tbody",
      {},
      attempts.map((attempt) =>
        h(
          "tr",
          {},
          h("td", {}, time(attempt.attemptedAt)),
          h("td", {}, attempt.statusCode === null ? "No response" : `HTTP ${attempt.statusCode}`),
          h("td", {}, `${attempt.latencyMs} ms`),
          h("td", {}, attempt.error ?? ""),
        ),
      ),
    ),
  );
}
