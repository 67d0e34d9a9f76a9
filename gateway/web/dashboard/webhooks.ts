import { api, loadInto, pageHeading, submitting, type ViewContext } from "./app-shell.ts";
import { confirmedButton, field, h, replace, resultBox, secretPanel, time, uniqueId } from "./dom.ts";

interface Webhook {
  webhookId: string;
  url: string;
  events: string[];
  createdAt: string;
  disabled: boolean;
  disabledAt?: string;
  disabledReason?: string;
}
interface Attempt {
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string;
}
interface Delivery {
  deliveryId: string;
  eventType: string;
  status: string;
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}

/** The event types the API documents (its OpenAPI enum): the page keeps no list of its own. */
async function eventCatalog(): Promise<string[]> {
  const response = await fetch("/api/v1/openapi.json", { credentials: "same-origin" }).catch(() => undefined);
  const document = response?.ok ? await response.json().catch(() => undefined) : undefined;
  const values = document?.components?.schemas?.CreateWebhookRequest?.properties?.events?.items?.enum;
  return Array.isArray(values) && values.length > 0 ? values : ["meeting.ended"];
}

/** How soon a pending delivery must be due for the open log to follow it, and how often it looks. */
const FOLLOW_WINDOW_MS = 60_000;
const FOLLOW_INTERVAL_MS = 1_500;

const statusLabel: Record<string, string> = { pending: "Pending", succeeded: "Delivered", failed: "Failed", cancelled: "Cancelled" };

/** Settings → Developers → Webhooks: admins change, members read. */
export function webhooksView({ main, user }: ViewContext) {
  const admin = user.role === "admin";
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const say = (result: { ok: boolean; error: string }, success: string) => replace(notice, resultBox(result, success));

  /** The card's "Last delivery": the newest delivery's status and time. */
  const showLastDelivery = (into: HTMLElement, last: Delivery | undefined) =>
    replace(into, last ? [statusLabel[last.status] ?? last.status, " · ", time(last.createdAt)] : "None yet");

  /** Opens (or refreshes) a webhook's delivery log; the card's last delivery follows what it shows. */
  const deliveryLog = (webhook: Webhook, container: HTMLElement, lastDelivery: HTMLElement) => {
    const fetchLog = () => api<{ deliveries: Delivery[] }>("GET", `/webhook/${webhook.webhookId}/deliveries?pageSize=20`);
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
        if (result.ok && container.isConnected) replace(container, render(result.body));
      }, FOLLOW_INTERVAL_MS);
    };
    const load = () => loadInto(container, fetchLog, render);
    const render = ({ deliveries }: { deliveries: Delivery[] }) => {
      followPending(deliveries);
      showLastDelivery(lastDelivery, deliveries[0]);
      return deliveries.length === 0
        ? h("p", { class: "empty" }, "No deliveries yet. They appear here when an event is sent.")
        : h(
            "ol",
            { class: "deliveries", "aria-label": `Deliveries to ${webhook.url}` },
            deliveries.map((delivery) =>
              h(
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
                  admin
                    ? h(
                        "button",
                        {
                          type: "button",
                          class: "secondary",
                          disabled: webhook.disabled,
                          "aria-label": `Redeliver ${delivery.eventType} ${delivery.deliveryId}`,
                          onclick: async () => {
                            say(
                              await api("POST", `/webhook/${webhook.webhookId}/deliveries/${delivery.deliveryId}/retry`),
                              "Redelivery scheduled: it is sent now with the same webhook-id.",
                            );
                            await load();
                          },
                        },
                        "Redeliver",
                      )
                    : null,
                ),
                h(
                  "table",
                  { class: "attempts" },
                  h("caption", {}, `Attempts (${delivery.attempts.length})`),
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
                    delivery.attempts.map((attempt) =>
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
                ),
              ),
            ),
          );
    };
    return load();
  };

  const reload = () =>
    loadInto(
      region,
      () => api<{ webhooks: Webhook[] }>("GET", "/webhook"),
      ({ webhooks }) =>
        webhooks.length === 0
          ? h(
              "p",
              { class: "empty" },
              admin
                ? "No webhooks yet. Register an endpoint above to be told about meetings as they start, end and change."
                : "Your organization has no webhooks.",
            )
          : h(
              "ul",
              { class: "cards" },
              webhooks.map((webhook) => {
                const log = h("div", { class: "log" });
                const lastDelivery = h("span", {}, "…");
                void api<{ deliveries: Delivery[] }>("GET", `/webhook/${webhook.webhookId}/deliveries?pageSize=1`).then((result) =>
                  result.ok ? showLastDelivery(lastDelivery, result.body.deliveries[0]) : replace(lastDelivery, "Unknown"),
                );
                return h(
                  "li",
                  { class: "card" },
                  h("h2", {}, h("code", {}, webhook.url)),
                  h(
                    "dl",
                    {},
                    h("dt", {}, "State"),
                    h(
                      "dd",
                      {},
                      webhook.disabled
                        ? [h("span", { class: "badge off" }, "Disabled"), " ", webhook.disabledReason ?? "", " ", time(webhook.disabledAt)]
                        : h("span", { class: "badge on" }, "Enabled"),
                    ),
                    h("dt", {}, "Events"),
                    h(
                      "dd",
                      {},
                      webhook.events.map((event, index) => [index > 0 ? ", " : "", h("code", {}, event)]),
                    ),
                    h("dt", {}, "Last delivery"),
                    h("dd", {}, lastDelivery),
                    h("dt", {}, "Created"),
                    h("dd", {}, time(webhook.createdAt)),
                  ),
                  h(
                    "div",
                    { class: "actions" },
                    h(
                      "button",
                      {
                        type: "button",
                        class: "secondary",
                        "aria-label": `Delivery log of ${webhook.url}`,
                        onclick: () => void deliveryLog(webhook, log, lastDelivery),
                      },
                      "Delivery log",
                    ),
                    admin && webhook.disabled
                      ? h(
                          "button",
                          {
                            type: "button",
                            class: "primary",
                            "aria-label": `Enable ${webhook.url}`,
                            onclick: async () => {
                              say(await api("POST", `/webhook/${webhook.webhookId}/enable`), "The webhook is enabled again.");
                              await reload();
                            },
                          },
                          "Enable",
                        )
                      : null,
                    admin
                      ? h(
                          "button",
                          {
                            type: "button",
                            class: "secondary",
                            disabled: webhook.disabled,
                            "aria-label": `Send a test event to ${webhook.url}`,
                            onclick: async () => {
                              say(await api("POST", `/webhook/${webhook.webhookId}/test`), "A webhook.test event is on its way; see the delivery log.");
                              await deliveryLog(webhook, log, lastDelivery);
                            },
                          },
                          "Send test event",
                        )
                      : null,
                    admin
                      ? confirmedButton({
                          label: "Rotate secret",
                          ariaLabel: `Rotate the signing secret of ${webhook.url}`,
                          tone: "secondary",
                          confirm: {
                            title: "Rotate the signing secret?",
                            message:
                              "You get a new secret now. For a grace window (24 hours unless your deployment says otherwise) deliveries are signed with both the old and the new secret, so switch your receiver to the new one before it ends.",
                            action: "Rotate secret",
                          },
                          onConfirmed: async () => {
                            const result = await api<{ secret: string; previousSecretExpiresAt: string | null }>(
                              "POST",
                              `/webhook/${webhook.webhookId}/rotate-secret`,
                            );
                            if (!result.ok) return say(result, "");
                            replace(
                              notice,
                              secretPanel({
                                stored: "encrypted",
                                title: "New signing secret",
                                label: "Signing secret",
                                value: result.body.secret,
                                extra: [
                                  h(
                                    "p",
                                    {},
                                    "The old secret keeps signing until ",
                                    time(result.body.previousSecretExpiresAt ?? undefined),
                                    "; after that only this one does.",
                                  ),
                                ],
                              }),
                            );
                            await reload();
                          },
                        })
                      : null,
                    admin && !webhook.disabled
                      ? confirmedButton({
                          label: "Disable",
                          ariaLabel: `Disable ${webhook.url}`,
                          tone: "secondary",
                          confirm: {
                            title: "Disable this webhook?",
                            message: `${webhook.url} will receive no events until you enable it again; pending deliveries fail (you can recover them later).`,
                            action: "Disable webhook",
                          },
                          onConfirmed: async () => {
                            say(await api("PATCH", `/webhook/${webhook.webhookId}`, { disabled: true }), "The webhook is disabled.");
                            await reload();
                          },
                        })
                      : null,
                    admin
                      ? confirmedButton({
                          label: "Delete",
                          ariaLabel: `Delete ${webhook.url}`,
                          tone: "danger",
                          confirm: {
                            title: "Delete this webhook?",
                            message: `${webhook.url} will receive no more events; pending deliveries are cancelled.`,
                            action: "Delete webhook",
                          },
                          onConfirmed: async () => {
                            say(await api("DELETE", "/webhook", { webhookId: webhook.webhookId }), "The webhook is deleted.");
                            await reload();
                          },
                        })
                      : null,
                  ),
                  log,
                );
              }),
            ),
    );

  const parts: Node[] = [];
  if (admin) {
    const message = h("div", { class: "form-message" });
    const url = h("input", { type: "url", name: "url", required: true, maxlength: "2048", placeholder: "https://example.com/hooks/svc", autocomplete: "off" });
    const events = h("fieldset", {}, h("legend", {}, "Events"), h("p", { class: "loading" }, "Loading…"));
    const form = h(
      "form",
      { class: "card inline-form", novalidate: true },
      h("h2", {}, "Register an endpoint"),
      field("Endpoint URL", url, "An https URL that answers 2xx within 15 seconds."),
      events,
      message,
      h("button", { type: "submit", class: "primary" }, "Register webhook"),
    );
    void eventCatalog().then((catalog) =>
      replace(
        events,
        h("legend", {}, "Events"),
        catalog.map((event) => {
          const id = uniqueId("event");
          return h(
            "div",
            { class: "check" },
            h("input", { type: "checkbox", id, name: "events", value: event, checked: catalog.length === 1 }),
            h("label", { for: id }, h("code", {}, event)),
          );
        }),
      ),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const chosen = [...events.querySelectorAll<HTMLInputElement>("input:checked")].map((box) => box.value);
      const result = await submitting(form, message, () => api("POST", "/webhook", { url: url.value, events: chosen }));
      if (!result.ok) return;
      url.value = "";
      replace(
        notice,
        secretPanel({
          stored: "encrypted",
          title: "Webhook registered: its signing secret",
          label: "Signing secret",
          value: result.body.secret,
          extra: [h("p", {}, "Verify every delivery with it (Standard Webhooks).")],
        }),
      );
      await reload();
    });
    parts.push(form);
  } else {
    parts.push(
      h("p", { class: "notice info" }, "Only admins of your organization can register, change or delete webhooks. You can see them and their delivery logs."),
    );
  }
  replace(
    main,
    pageHeading("Webhooks", "Endpoints we call when something happens in your organization's meetings (signed per Standard Webhooks)."),
    notice,
    parts,
    region,
  );
  void reload();
}
