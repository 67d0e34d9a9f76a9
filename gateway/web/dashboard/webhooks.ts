import { h, replaceChildren } from "../shared/dom.ts";
import { api, loadInto, pageHeading, type Schema, type ViewContext } from "./app-shell.ts";
import { resultBox } from "./widgets.ts";
import { registerWebhookForm } from "./webhooks/register-form.ts";
import { webhookCard } from "./webhooks/webhook-card.ts";

/**
 * Settings → Developers → Webhooks: admins change, members read. The page is the registration form
 * (webhooks/register-form.ts) and a card per webhook (webhooks/webhook-card.ts) with its delivery
 * log (webhooks/delivery-log.ts).
 */
export function webhooksView({ main, user }: ViewContext) {
  const admin = user.role === "admin";
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const say = (result: { ok: boolean; error: string }, success: string) => replaceChildren(notice, resultBox(result, success));

  // Opened from a meeting page's delivery (…/webhooks#webhook-<id>): bring that webhook's card into view.
  const showLinkedCard = () => {
    const card = window.location.hash ? document.getElementById(decodeURIComponent(window.location.hash.slice(1))) : null;
    if (card?.classList.contains("card")) {
      card.scrollIntoView({ block: "start" });
      card.focus();
    }
  };
  const reload = (): Promise<void> =>
    loadInto(
      region,
      () => api<Schema<"WebhookList">>("GET", "/webhook"),
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
              webhooks.map((webhook) => webhookCard(webhook, { admin, notice, say, reload })),
            ),
    );

  const intro = admin
    ? registerWebhookForm(notice, reload)
    : h("p", { class: "notice info" }, "Only admins of your organization can register, change or delete webhooks. You can see them and their delivery logs.");
  replaceChildren(
    main,
    pageHeading("Webhooks", "Endpoints we call when something happens in your organization's meetings (signed per Standard Webhooks)."),
    notice,
    intro,
    region,
  );
  void reload().then(showLinkedCard);
}
