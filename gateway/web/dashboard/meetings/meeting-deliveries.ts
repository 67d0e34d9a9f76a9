import { h, replaceChildren } from "../../shared/dom.ts";
import { api, type Schema } from "../app-shell.ts";
import { alertBox, time } from "../widgets.ts";
import { statusLabel } from "../webhooks/delivery-log.ts";

type Webhook = Schema<"Webhook">;
type Delivery = Schema<"Delivery">;

/** The webhook's card on the Webhooks page (its delivery log is there). */
export const webhookPagePath = (webhookId: string) => `/dashboard/webhooks#webhook-${webhookId}`;

const DELIVERIES_SHOWN = 20;

/**
 * The webhook deliveries about one meeting: for each of the organization's webhooks, the newest
 * deliveries of events whose `data.meetingId` is this meeting (the API's `meetingId` filter), with
 * event, endpoint (a link to its card), status and attempts.
 */
export function meetingDeliveries(meetingId: string) {
  const region = h("div", { class: "region" }, h("p", { class: "loading", role: "status" }, "Loading deliveries…"));
  void (async () => {
    const webhooks = await api<Schema<"WebhookList">>("GET", "/webhook");
    if (!webhooks.ok) return replaceChildren(region, alertBox(webhooks.error));
    if (webhooks.body.webhooks.length === 0) {
      return replaceChildren(region, h("p", { class: "empty" }, "Your organization has no webhooks, so nothing was sent about this meeting."));
    }
    const pages = await Promise.all(
      webhooks.body.webhooks.map(async (webhook) => ({
        webhook,
        page: await api<Schema<"DeliveryPage">>(
          "GET",
          `/webhook/${webhook.webhookId}/deliveries?meetingId=${encodeURIComponent(meetingId)}&pageSize=${DELIVERIES_SHOWN}`,
        ),
      })),
    );
    const failed = pages.find(({ page }) => !page.ok);
    if (failed) return replaceChildren(region, alertBox(failed.page.error));
    const rows = pages
      .flatMap(({ webhook, page }) => (page.body.deliveries as Delivery[]).map((delivery) => ({ webhook, delivery })))
      .sort((a, b) => Date.parse(b.delivery.createdAt) - Date.parse(a.delivery.createdAt));
    if (rows.length === 0) return replaceChildren(region, h("p", { class: "empty" }, "No webhook deliveries about this meeting yet."));
    replaceChildren(
      region,
      h(
        "table",
        { class: "responsive deliveries-table" },
        h("caption", { class: "visually-hidden" }, "Webhook deliveries about this meeting, newest first"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Event", "Endpoint", "Status", "Attempts", "Created"].map((name) => h("th", { scope: "col" }, name)),
          ),
        ),
        h(
          "tbody",
          {},
          rows.map(({ webhook, delivery }) => deliveryRow(webhook, delivery)),
        ),
      ),
    );
  })();
  return h("section", { class: "card", "aria-labelledby": "deliveries-title" }, h("h2", { id: "deliveries-title" }, "Webhook deliveries"), region);
}

function deliveryRow(webhook: Webhook, delivery: Delivery) {
  const last = delivery.attempts.at(-1);
  return h(
    "tr",
    {},
    h("th", { scope: "row", "data-label": "Event" }, h("code", { class: "event-type" }, delivery.eventType)),
    h("td", { "data-label": "Endpoint" }, h("a", { href: webhookPagePath(webhook.webhookId) }, h("code", {}, webhook.url))),
    h(
      "td",
      { "data-label": "Status" },
      h(
        "span",
        { class: `badge ${delivery.status === "succeeded" ? "on" : delivery.status === "pending" ? "wait" : "off"}` },
        statusLabel[delivery.status] ?? delivery.status,
      ),
    ),
    h(
      "td",
      { "data-label": "Attempts" },
      h(
        "span",
        {},
        String(delivery.attempts.length),
        last ? h("span", { class: "muted" }, ` (last: ${last.statusCode === null ? "no response" : `HTTP ${last.statusCode}`})`) : null,
      ),
    ),
    h("td", { "data-label": "Created" }, time(delivery.createdAt)),
  );
}
