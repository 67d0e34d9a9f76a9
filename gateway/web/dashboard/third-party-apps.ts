import { api, loadInto, pageHeading, submitting, type ViewContext } from "./app-shell.ts";
import { h, replaceChildren, uniqueId } from "../shared/dom.ts";
import { confirmAction } from "../shared/confirm-dialog.ts";
import { field, resultBox, time } from "./widgets.ts";

interface AllowedClient {
  clientId: string;
  name: string;
  organizationName: string;
  addedAt: string;
}

interface ClientPolicy {
  policy: "all" | "listed";
  allowedClients: AllowedClient[];
}

const ENDING_WARNING = "People in your organization who already authorized an application that is not listed lose that authorization at once.";

/**
 * Third-party apps (admins): whether the organization's people may authorize any organization's
 * OAuth application or only listed ones, and the list. The API enforces it (the consent page
 * refuses an unlisted application); this page only shows and changes the setting.
 */
export function thirdPartyAppsView({ main }: ViewContext) {
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const say = (result: { ok: boolean; error: string }, success: string) => replaceChildren(notice, resultBox(result, success));
  const reload = () => loadInto(region, () => api<ClientPolicy>("GET", "/oauth-client-policy"), render);

  const page: PageActions = { notice, say, reload };
  const render = (current: ClientPolicy) => [policyForm(current, page), addForm(page), listedTable(current, page)];

  replaceChildren(
    main,
    pageHeading(
      "Third-party apps",
      "Which other organizations' OAuth applications the people in your organization may authorize. Applications your organization registered are always allowed.",
    ),
    notice,
    region,
  );
  void reload();
}

/** What a section does around a change: say how it went, and show the policy anew. */
interface PageActions {
  /** The page's status line (emptied when a change starts). */
  notice: HTMLElement;
  say(result: { ok: boolean; error: string }, success: string): void;
  reload(): Promise<void>;
}

function policyForm(current: ClientPolicy, { notice, say, reload }: PageActions) {
  const name = uniqueId("policy");
  const option = (value: ClientPolicy["policy"], label: string, hint: string) => {
    const input = h("input", {
      type: "radio",
      name,
      value,
      id: `${name}-${value}`,
      checked: current.policy === value,
      "aria-describedby": `${name}-${value}-hint`,
    });
    return h(
      "div",
      { class: "check" },
      input,
      h("div", {}, h("label", { for: `${name}-${value}` }, label), h("p", { class: "hint", id: `${name}-${value}-hint` }, hint)),
    );
  };
  const message = h("div", { class: "form-message" });
  const form = h(
    "form",
    { class: "card inline-form", novalidate: true },
    h(
      "fieldset",
      {},
      h("legend", {}, "Which applications may people in your organization authorize?"),
      option("all", "Any application", "Any organization's OAuth application (the default)."),
      option("listed", "Only listed applications", "Only the applications listed below, and your organization's own, which are always allowed."),
    ),
    message,
    h("button", { type: "submit", class: "primary" }, "Save policy"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = (form.querySelector(`input[name="${name}"]:checked`) as HTMLInputElement | null)?.value as ClientPolicy["policy"] | undefined;
    if (!chosen) return;
    if (chosen === "listed" && current.policy !== "listed") {
      const sure = await confirmAction({ title: "Allow only listed applications?", message: ENDING_WARNING, action: "Allow only listed" });
      if (!sure) return;
    }
    const result = await submitting(form, message, () => api("PUT", "/oauth-client-policy", { policy: chosen }), { earlierStatus: notice });
    if (!result.ok) return;
    say(result, chosen === "listed" ? "Only listed applications can be authorized now." : "Any application can be authorized now.");
    await reload();
  });
  return form;
}

function addForm({ notice, say, reload }: PageActions) {
  const clientId = h("input", { type: "text", name: "clientId", required: true, maxlength: "100", autocomplete: "off", spellcheck: "false" });
  const message = h("div", { class: "form-message" });
  const form = h(
    "form",
    { class: "card inline-form", novalidate: true },
    h("h2", {}, "List an application"),
    field("Client ID", clientId, "The application's client ID, from its developer. Its name and organization are shown once it is listed."),
    message,
    h("button", { type: "submit", class: "primary" }, "Add to list"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const id = clientId.value.trim();
    const result = await submitting(form, message, () => api<ClientPolicy>("PUT", `/oauth-client-policy/allowed-clients/${encodeURIComponent(id)}`), {
      earlierStatus: notice,
    });
    if (!result.ok) return;
    const added = (result.body as ClientPolicy).allowedClients.find((client) => client.clientId === id.toLowerCase());
    say(result, added ? `${added.name} (registered by ${added.organizationName}) is listed.` : "The application is listed.");
    await reload();
  });
  return form;
}

function listedTable(current: ClientPolicy, { say, reload }: PageActions) {
  if (current.allowedClients.length === 0) {
    return h(
      "p",
      { class: "empty" },
      "No application is listed.",
      current.policy === "listed" ? " People in your organization can authorize only your organization's own applications." : "",
    );
  }
  return h(
    "table",
    {},
    h("caption", {}, current.policy === "listed" ? "Listed applications (allowed)" : "Listed applications (kept for when only listed ones are allowed)"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Application", "Registered by", "Client ID", "Listed", "Actions"].map((label) => h("th", { scope: "col" }, label)),
      ),
    ),
    h(
      "tbody",
      {},
      current.allowedClients.map((client) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, client.name),
          h("td", {}, client.organizationName),
          h("td", {}, h("code", {}, client.clientId)),
          h("td", {}, time(client.addedAt)),
          h(
            "td",
            {},
            h(
              "button",
              {
                type: "button",
                class: "danger",
                "aria-label": `Remove ${client.name} from the list`,
                onclick: async () => {
                  if (current.policy === "listed") {
                    const sure = await confirmAction({
                      title: `Remove ${client.name}?`,
                      message: "People in your organization can no longer authorize it, and their existing authorizations of it end at once.",
                      action: "Remove",
                    });
                    if (!sure) return;
                  }
                  say(
                    await api("DELETE", `/oauth-client-policy/allowed-clients/${encodeURIComponent(client.clientId)}`),
                    `${client.name} is no longer listed.`,
                  );
                  await reload();
                },
              },
              "Remove",
            ),
          ),
        ),
      ),
    ),
  );
}
