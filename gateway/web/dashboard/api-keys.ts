import { api, loadInto, pageHeading, submitting, type ViewContext } from "./app-shell.ts";
import { h, replaceChildren } from "../shared/dom.ts";
import { confirmedButton, field, resultBox, secretPanel, time } from "./widgets.ts";
import type { Schema } from "./api.ts";

/** Settings → Developers → API keys: the signed-in user's own keys. */
export function apiKeysView({ main }: ViewContext) {
  const list = h("div", { class: "region" });
  const created = h("div", { class: "created" });
  const message = h("div", { class: "form-message" });
  const name = h("input", { type: "text", name: "name", required: true, maxlength: "100", autocomplete: "off" });
  const form = h(
    "form",
    { class: "card inline-form", novalidate: true },
    h("h2", {}, "Create an API key"),
    field("Key name", name, "What the key is for, for example “CI deploys”. 1 to 100 characters."),
    message,
    h("button", { type: "submit", class: "primary" }, "Create key"),
  );
  const reload = () =>
    loadInto(
      list,
      () => api<Schema<"ApiKeyList">>("GET", "/api-keys"),
      ({ apiKeys }) =>
        apiKeys.length === 0
          ? h("p", { class: "empty" }, "You have no API keys yet. Create one above; it acts as you, with everything your role allows.")
          : h(
              "table",
              {},
              h("caption", {}, "Your API keys"),
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ["Name", "Key", "Created", "Last used", "Status", "Actions"].map((label) => h("th", { scope: "col" }, label)),
                ),
              ),
              h(
                "tbody",
                {},
                apiKeys.map((key) =>
                  h(
                    "tr",
                    {},
                    h("th", { scope: "row" }, key.name),
                    h("td", {}, h("code", {}, `${key.prefix}…`)),
                    h("td", {}, time(key.createdAt)),
                    h("td", {}, time(key.lastUsedAt)),
                    h(
                      "td",
                      {},
                      key.revokedAt ? h("span", { class: "badge off" }, "Revoked ", time(key.revokedAt)) : h("span", { class: "badge on" }, "Active"),
                    ),
                    h(
                      "td",
                      {},
                      key.revokedAt
                        ? null
                        : confirmedButton({
                            label: "Revoke",
                            ariaLabel: `Revoke ${key.name}`,
                            tone: "danger",
                            confirm: {
                              title: `Revoke “${key.name}”?`,
                              message: "Anything using this key stops working at once. This cannot be undone.",
                              action: "Revoke key",
                            },
                            onConfirmed: async () => {
                              replaceChildren(created, resultBox(await api("POST", `/api-keys/${key.keyId}/revoke`), `The key “${key.name}” is revoked.`));
                              await reload();
                            },
                          }),
                    ),
                  ),
                ),
              ),
            ),
    );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = await submitting(form, message, () => api<Schema<"CreatedApiKey">>("POST", "/api-keys", { name: name.value }));
    if (!result.ok) return;
    form.reset();
    replaceChildren(created, secretPanel({ stored: "hashed", title: `Your new key “${result.body.name}”`, label: "API key", value: result.body.key }));
    await reload();
  });
  replaceChildren(main, pageHeading("API keys", "Keys authenticate your scripts and servers as you (Authorization: Bearer …)."), created, form, list);
  void reload();
}
