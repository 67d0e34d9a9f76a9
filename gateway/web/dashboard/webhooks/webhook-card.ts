import { h, replaceChildren } from "../../shared/dom.ts";
import { api, type Schema } from "../app-shell.ts";
import { confirmedButton, secretPanel, time } from "../widgets.ts";
import { openDeliveryLog, showLastDelivery } from "./delivery-log.ts";

type Webhook = Schema<"Webhook">;

export interface WebhookCardContext {
  admin: boolean;
  /** Where the answers to actions and a new secret are shown. */
  notice: HTMLElement;
  say(result: { ok: boolean; error: string }, success: string): void;
  /** Reads the list again after a change. */
  reload(): Promise<void>;
}

/** One webhook: its address, state, events, last delivery and creation, its actions, and its delivery log once opened. */
export function webhookCard(webhook: Webhook, context: WebhookCardContext) {
  const log = h("div", { class: "log" });
  const lastDelivery = h("span", {}, "…");
  void api<Schema<"DeliveryPage">>("GET", `/webhook/${webhook.webhookId}/deliveries?pageSize=1`).then((result) =>
    result.ok ? showLastDelivery(lastDelivery, result.body.deliveries[0]) : replaceChildren(lastDelivery, "Unknown"),
  );
  const openLog = () => openDeliveryLog(webhook, log, lastDelivery, context);
  return h(
    "li",
    // The anchor a meeting page's delivery links to (/dashboard/webhooks#webhook-<id>).
    { class: "card", id: `webhook-${webhook.webhookId}`, tabindex: "-1" },
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
    h("div", { class: "actions" }, ...webhookActions(webhook, context, openLog)),
    log,
  );
}

/** The card's buttons: the delivery log for everyone; enable, test, rotate, disable and delete for admins. */
function webhookActions(webhook: Webhook, context: WebhookCardContext, openLog: () => Promise<void>) {
  const { admin, say, reload } = context;
  return [
    h("button", { type: "button", class: "secondary", "aria-label": `Delivery log of ${webhook.url}`, onclick: () => void openLog() }, "Delivery log"),
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
              await openLog();
            },
          },
          "Send test event",
        )
      : null,
    admin ? rotateSecretButton(webhook, context) : null,
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
  ];
}

/** Rotates the signing secret after a confirmation, and shows the new one once. */
function rotateSecretButton(webhook: Webhook, context: WebhookCardContext) {
  return confirmedButton({
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
      const result = await api<Schema<"RotatedSecret">>("POST", `/webhook/${webhook.webhookId}/rotate-secret`);
      if (!result.ok) return context.say(result, "");
      replaceChildren(
        context.notice,
        secretPanel({
          stored: "encrypted",
          title: "New signing secret",
          label: "Signing secret",
          value: result.body.secret,
          extra: [
            h("p", {}, "The old secret keeps signing until ", time(result.body.previousSecretExpiresAt ?? undefined), "; after that only this one does."),
          ],
        }),
      );
      await context.reload();
    },
  });
}
