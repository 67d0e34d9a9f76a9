import { api, loadInto, pageHeading, submitting, type ViewContext } from "./app-shell.ts";
import { alertBox, confirmAction, confirmedButton, field, h, replace, resultBox, secretPanel, statusBox, time, uniqueId } from "./dom.ts";

interface Client {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  createdAt: string;
}
interface ScopeInfo {
  scope: string;
  description: string;
}

/** One form for creating and editing: name, redirect URIs (one per line), scopes from the catalog. */
function clientForm(
  catalog: ScopeInfo[],
  initial: Client | undefined,
  submitLabel: string,
  onSubmit: (fields: { name: string; redirectUris: string[]; scopes: string[] }, form: HTMLFormElement, message: HTMLElement) => void,
) {
  const message = h("div", { class: "form-message" });
  const name = h("input", { type: "text", name: "name", required: true, maxlength: "100", value: initial?.name ?? "", autocomplete: "off" });
  const uris = h("textarea", { name: "redirectUris", rows: "3", required: true, spellcheck: "false" });
  uris.value = initial?.redirectUris.join("\n") ?? "";
  const legendId = uniqueId("scopes");
  const boxes = catalog.map((entry) => {
    const id = uniqueId("scope");
    const box = h("input", { type: "checkbox", id, name: "scopes", value: entry.scope, checked: initial?.scopes.includes(entry.scope) ?? false });
    return { box, row: h("div", { class: "check" }, box, h("label", { for: id }, h("code", {}, entry.scope), " — ", entry.description)) };
  });
  const form = h(
    "form",
    { class: "card", novalidate: true },
    field("Application name", name, "Shown to people on the consent page."),
    field("Redirect URIs", uris, "One per line, compared exactly. Absolute https URLs (http for local development)."),
    h(
      "fieldset",
      { "aria-describedby": `${legendId}-hint` },
      h("legend", { id: legendId }, "Scopes the application may ask for"),
      h("p", { class: "hint", id: `${legendId}-hint` }, "At least one."),
      boxes.map(({ row }) => row),
    ),
    message,
    h("button", { type: "submit", class: "primary" }, submitLabel),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onSubmit(
      {
        name: name.value,
        // Splitting the box into lines is presentation; every rule about the URIs is the API's.
        redirectUris: uris.value
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== ""),
        scopes: boxes.filter(({ box }) => box.checked).map(({ box }) => box.value),
      },
      form,
      message,
    );
  });
  return form;
}

/** Settings → Developers → OAuth clients (admins). */
export function oauthClientsView({ main }: ViewContext) {
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const showSecret = (title: string, client: Client & { clientSecret: string }) =>
    replace(
      notice,
      secretPanel({
        stored: "hashed",
        title,
        label: "Client secret",
        value: client.clientSecret,
        extra: [h("p", {}, "Client ID: ", h("code", { class: "client-id" }, client.clientId), " (not secret; shown in the list).")],
      }),
    );
  const reload = () =>
    loadInto(
      region,
      () => api<{ clients: Client[]; scopeCatalog: ScopeInfo[] }>("GET", "/oauth-clients"),
      ({ clients, scopeCatalog }) => {
        const createSection = h("section", { class: "create" });
        const openCreate = h(
          "button",
          {
            type: "button",
            class: "primary",
            onclick: () => {
              openCreate.hidden = true;
              replace(
                createSection,
                h("h2", {}, "Register an application"),
                clientForm(scopeCatalog, undefined, "Register application", async (fields, form, message) => {
                  const result = await submitting(form, message, () => api("POST", "/oauth-clients", fields));
                  if (!result.ok) return;
                  showSecret(`“${result.body.name}” is registered`, result.body);
                  await reload();
                }),
                h(
                  "button",
                  {
                    type: "button",
                    class: "secondary",
                    onclick: () => {
                      replace(createSection);
                      openCreate.hidden = false;
                      openCreate.focus();
                    },
                  },
                  "Cancel",
                ),
              );
              (createSection.querySelector("input") as HTMLInputElement).focus();
            },
          },
          "Register an application",
        );
        const items =
          clients.length === 0
            ? h("p", { class: "empty" }, "No applications are registered for your organization yet.")
            : h(
                "ul",
                { class: "cards" },
                clients.map((client) => {
                  const card = h("li", { class: "card" });
                  const render = () =>
                    replace(
                      card,
                      h("h2", {}, client.name),
                      h(
                        "dl",
                        {},
                        h("dt", {}, "Client ID"),
                        h("dd", {}, h("code", {}, client.clientId)),
                        h("dt", {}, "Redirect URIs"),
                        h(
                          "dd",
                          {},
                          h(
                            "ul",
                            {},
                            client.redirectUris.map((uri) => h("li", {}, h("code", {}, uri))),
                          ),
                        ),
                        h("dt", {}, "Scopes"),
                        h(
                          "dd",
                          {},
                          client.scopes.map((scope, index) => [index > 0 ? ", " : "", h("code", {}, scope)]),
                        ),
                        h("dt", {}, "Registered"),
                        h("dd", {}, time(client.createdAt)),
                      ),
                      h(
                        "div",
                        { class: "actions" },
                        h(
                          "button",
                          {
                            type: "button",
                            class: "secondary",
                            "aria-label": `Edit ${client.name}`,
                            onclick: () =>
                              replace(
                                card,
                                h("h2", {}, `Edit ${client.name}`),
                                clientForm(scopeCatalog, client, "Save changes", async (fields, form, message) => {
                                  const removed = client.scopes.some((scope) => !fields.scopes.includes(scope));
                                  if (
                                    removed &&
                                    !(await confirmAction({
                                      title: "Remove scopes?",
                                      message:
                                        "Removing a scope ends every authorization of this application: its tokens stop working and people approve again.",
                                      action: "Save and end authorizations",
                                    }))
                                  )
                                    return;
                                  const result = await submitting(form, message, () => api("PUT", `/oauth-clients/${client.clientId}`, fields));
                                  if (!result.ok) return;
                                  replace(notice, statusBox(`“${result.body.name}” is saved.`));
                                  await reload();
                                }),
                                h("button", { type: "button", class: "secondary", onclick: render }, "Cancel"),
                              ),
                          },
                          "Edit",
                        ),
                        confirmedButton({
                          label: "Rotate secret",
                          ariaLabel: `Rotate the secret of ${client.name}`,
                          tone: "secondary",
                          confirm: {
                            title: `Rotate the secret of ${client.name}?`,
                            message: "The current secret stops working at once. Update the application with the new one.",
                            action: "Rotate secret",
                          },
                          onConfirmed: async () => {
                            const result = await api("POST", `/oauth-clients/${client.clientId}/secret`);
                            if (result.ok) showSecret(`New secret for “${client.name}”`, result.body);
                            else replace(notice, alertBox(result.error));
                          },
                        }),
                        confirmedButton({
                          label: "Delete",
                          ariaLabel: `Delete ${client.name}`,
                          tone: "danger",
                          confirm: {
                            title: `Delete ${client.name}?`,
                            message: "Every authorization of this application ends at once and its tokens stop working. This cannot be undone.",
                            action: "Delete application",
                          },
                          onConfirmed: async () => {
                            replace(notice, resultBox(await api("DELETE", `/oauth-clients/${client.clientId}`), `“${client.name}” is deleted.`));
                            await reload();
                          },
                        }),
                      ),
                    );
                  render();
                  return card;
                }),
              );
        return [h("div", { class: "toolbar" }, openCreate), createSection, items];
      },
    );
  replace(main, pageHeading("OAuth clients", "Applications that act for people through the OAuth 2.0 authorization-code flow."), notice, region);
  void reload();
}
