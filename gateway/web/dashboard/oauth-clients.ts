import { h, replaceChildren } from "../shared/dom.ts";
import { api, loadInto, pageHeading, submitting, type Schema, type ViewContext } from "./app-shell.ts";
import { clientCard } from "./oauth-clients/client-card.ts";
import { clientForm } from "./oauth-clients/client-form.ts";
import { secretPanel } from "./widgets.ts";

/** Settings → Developers → OAuth clients (admins). */
export function oauthClientsView({ main }: ViewContext) {
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const showSecret = (title: string, client: Schema<"CreatedOAuthClient">) =>
    replaceChildren(
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
      () => api<Schema<"OAuthClientList">>("GET", "/oauth-clients"),
      ({ clients, scopeCatalog }) => {
        const createSection = h("section", { class: "create" });
        const openCreate = h(
          "button",
          {
            type: "button",
            class: "primary",
            onclick: () => {
              openCreate.hidden = true;
              replaceChildren(
                createSection,
                h("h2", {}, "Register an application"),
                clientForm(scopeCatalog, undefined, "Register application", async (fields, form, message) => {
                  const result = await submitting(form, message, () => api<Schema<"CreatedOAuthClient">>("POST", "/oauth-clients", fields));
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
                      replaceChildren(createSection);
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
                clients.map((client) => clientCard(client, { scopeCatalog, notice, showSecret, reload })),
              );
        return [h("div", { class: "toolbar" }, openCreate), createSection, items];
      },
    );
  replaceChildren(main, pageHeading("OAuth clients", "Applications that act for people through the OAuth 2.0 authorization-code flow."), notice, region);
  void reload();
}
