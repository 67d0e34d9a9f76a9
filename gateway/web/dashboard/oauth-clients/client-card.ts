import { h, replaceChildren } from "../../shared/dom.ts";
import { api, submitting, type Schema } from "../app-shell.ts";
import { confirmAction } from "../../shared/confirm-dialog.ts";
import { alertBox, confirmedButton, resultBox, statusBox, time } from "../widgets.ts";
import { clientForm, type Client, type ScopeInfo } from "./client-form.ts";

export interface ClientCardContext {
  scopeCatalog: ScopeInfo[];
  /** Where answers and a new secret are shown. */
  notice: HTMLElement;
  showSecret(title: string, client: Schema<"CreatedOAuthClient">): void;
  reload(): Promise<void>;
}

/** One registered application: its details and actions; Edit turns the card into the form until saved or cancelled. */
export function clientCard(client: Client, context: ClientCardContext) {
  const card = h("li", { class: "card" });
  const render = () =>
    replaceChildren(
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
        h("dt", {}, "PKCE"),
        h("dd", {}, client.requirePkce ? "Required on every authorization request" : "Not required"),
        h("dt", {}, "Registered"),
        h("dd", {}, time(client.createdAt)),
      ),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "secondary", "aria-label": `Edit ${client.name}`, onclick: () => edit(card, client, context, render) }, "Edit"),
        rotateSecretButton(client, context),
        deleteButton(client, context),
      ),
    );
  render();
  return card;
}

/** The card as the edit form; removing a scope asks first (it ends every authorization). */
function edit(card: HTMLElement, client: Client, context: ClientCardContext, cancel: () => void) {
  replaceChildren(
    card,
    h("h2", {}, `Edit ${client.name}`),
    clientForm(context.scopeCatalog, client, "Save changes", async (fields, form, message) => {
      const removed = client.scopes.some((scope) => !fields.scopes.includes(scope));
      if (
        removed &&
        !(await confirmAction({
          title: "Remove scopes?",
          message: "Removing a scope ends every authorization of this application: its tokens stop working and people approve again.",
          action: "Save and end authorizations",
        }))
      )
        return;
      const result = await submitting(form, message, () => api<Client>("PUT", `/oauth-clients/${client.clientId}`, fields));
      if (!result.ok) return;
      replaceChildren(context.notice, statusBox(`“${result.body.name}” is saved.`));
      await context.reload();
    }),
    h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel"),
  );
}

function rotateSecretButton(client: Client, context: ClientCardContext) {
  return confirmedButton({
    label: "Rotate secret",
    ariaLabel: `Rotate the secret of ${client.name}`,
    tone: "secondary",
    confirm: {
      title: `Rotate the secret of ${client.name}?`,
      message: "The current secret stops working at once. Update the application with the new one.",
      action: "Rotate secret",
    },
    onConfirmed: async () => {
      const result = await api<Schema<"CreatedOAuthClient">>("POST", `/oauth-clients/${client.clientId}/secret`);
      if (result.ok) context.showSecret(`New secret for “${client.name}”`, result.body);
      else replaceChildren(context.notice, alertBox(result.error));
    },
  });
}

function deleteButton(client: Client, context: ClientCardContext) {
  return confirmedButton({
    label: "Delete",
    ariaLabel: `Delete ${client.name}`,
    tone: "danger",
    confirm: {
      title: `Delete ${client.name}?`,
      message: "Every authorization of this application ends at once and its tokens stop working. This cannot be undone.",
      action: "Delete application",
    },
    onConfirmed: async () => {
      replaceChildren(context.notice, resultBox(await api("DELETE", `/oauth-clients/${client.clientId}`), `“${client.name}” is deleted.`));
      await context.reload();
    },
  });
}
