import { h, uniqueId } from "../../shared/dom.ts";
import { field } from "../widgets.ts";
import type { Schema } from "../api.ts";

// A registered OAuth client as the API answers it, and an entry of the scope catalog it offers.
export type Client = Schema<"OAuthClient">;
export type ScopeInfo = Schema<"OAuthClientList">["scopeCatalog"][number];

export interface ClientFields {
  name: string;
  redirectUris: string[];
  scopes: string[];
  requirePkce: boolean;
}

/** One form for creating and editing: name, redirect URIs (one per line), scopes from the catalog, PKCE. */
export function clientForm(
  catalog: ScopeInfo[],
  initial: Client | undefined,
  submitLabel: string,
  onSubmit: (fields: ClientFields, form: HTMLFormElement, message: HTMLElement) => void,
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
  const pkceId = uniqueId("pkce");
  const requirePkce = h("input", {
    type: "checkbox",
    id: pkceId,
    name: "requirePkce",
    checked: initial?.requirePkce ?? false,
    "aria-describedby": `${pkceId}-hint`,
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
    h(
      "div",
      { class: "check" },
      requirePkce,
      h(
        "div",
        {},
        h("label", { for: pkceId }, "Require PKCE on every authorization request"),
        h(
          "p",
          { class: "hint", id: `${pkceId}-hint` },
          "The application must then send an S256 code_challenge, which protects a code that leaks on its way back. Leave it off for applications that do not send one, such as Cal.com.",
        ),
      ),
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
        requirePkce: requirePkce.checked,
      },
      form,
      message,
    );
  });
  return form;
}
