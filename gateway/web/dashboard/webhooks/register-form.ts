import { h, replaceChildren, uniqueId } from "../../shared/dom.ts";
import { api, submitting, type Schema } from "../app-shell.ts";
import { field, secretPanel } from "../widgets.ts";

/** The event types the API documents (its OpenAPI enum): the page keeps no list of its own. */
async function eventCatalog(): Promise<string[]> {
  const response = await fetch("/api/v1/openapi.json", { credentials: "same-origin" }).catch(() => undefined);
  const document = response?.ok ? await response.json().catch(() => undefined) : undefined;
  const values = document?.components?.schemas?.CreateWebhookRequest?.properties?.events?.items?.enum;
  return Array.isArray(values) && values.length > 0 ? values : ["meeting.ended"];
}

/** Registers an endpoint (admins): its URL and events; the signing secret is shown once in `notice`. */
export function registerWebhookForm(notice: HTMLElement, reload: () => Promise<void>) {
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
    replaceChildren(
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
    const result = await submitting(form, message, () => api<Schema<"CreatedWebhook">>("POST", "/webhook", { url: url.value, events: chosen }));
    if (!result.ok) return;
    url.value = "";
    replaceChildren(
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
  return form;
}
