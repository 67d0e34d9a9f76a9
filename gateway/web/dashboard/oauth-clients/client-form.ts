import { h } from "../../shared/dom.ts";
import { field, uniqueId } from "../widgets.ts";
import type { Schema } from "../api.ts";

// A registered OAuth client as the API answers it, and an entry of the scope catalog it offers.
export type Client = Schema<"OAuthClient">;
export type ScopeInfo = Schema<"OAuthClientList">["scopeCatalog"][number];

/** One form for creating and editing: name, redirect URIs (one per line), scopes from the catalog. */
export function clientForm(
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
