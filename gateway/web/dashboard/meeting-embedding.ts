import { identityLimits } from "@svc/platform/contract";
import type { ApiResult } from "./api.ts";
import { api, loadInto, pageHeading, submitting, type Schema, type ViewContext } from "./app-shell.ts";
import { h, replaceChildren } from "../shared/dom.ts";
import { confirmAction } from "../shared/confirm-dialog.ts";
import { field, resultBox } from "./widgets.ts";

type MeetingEmbedding = Schema<"MeetingEmbedding">;

/** The `<iframe>` an integrator puts in their page (docs/meeting-room.md, "Embedding the room"). */
const SNIPPET = `<iframe src="JOIN_URL"
  allow="camera; microphone; display-capture; autoplay"
  width="100%" height="640"></iframe>`;

/**
 * Embedding (admins): the origins allowed to show the organization's meetings in a frame. The API
 * checks and normalizes each origin and the join page enforces the list (frame-ancestors); this
 * page shows the list, adds to it and removes from it, each change a PUT of the whole list.
 */
export function meetingEmbeddingView({ main }: ViewContext) {
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const reload = () => loadInto(region, () => api<MeetingEmbedding>("GET", "/meeting-embedding"), render);
  const save = (origins: string[]) => api<MeetingEmbedding>("PUT", "/meeting-embedding", { allowedOrigins: origins });

  const render = (current: MeetingEmbedding) => [addForm(current, notice, save, reload), originList(current, notice, save, reload), snippet()];

  replaceChildren(
    main,
    pageHeading(
      "Embedding",
      "Which sites may show your organization's meetings inside their own pages, in an iframe. Browsers refuse every other site, and the meeting sends its events (joined, left, …) only to these.",
    ),
    notice,
    region,
  );
  void reload();
}

type Save = (origins: string[]) => Promise<ApiResult<MeetingEmbedding>>;

function addForm(current: MeetingEmbedding, notice: HTMLElement, save: Save, reload: () => Promise<void>) {
  const full = current.allowedOrigins.length >= identityLimits.embedOriginsMax;
  const origin = h("input", {
    type: "text",
    inputmode: "url",
    name: "origin",
    required: true,
    maxlength: String(identityLimits.embedOriginMaxLength),
    placeholder: "https://app.example.com",
    autocomplete: "off",
    spellcheck: "false",
    disabled: full,
  });
  const message = h("div", { class: "form-message" });
  const form = h(
    "form",
    { class: "card inline-form", novalidate: true },
    h("h2", {}, "Allow a site"),
    field(
      "Origin",
      origin,
      `Scheme, host and port only, such as https://app.example.com or https://app.example.com:8443. Plain http only for http://localhost or http://127.0.0.1 while you develop. Up to ${identityLimits.embedOriginsMax} sites.`,
    ),
    message,
    h("button", { type: "submit", class: "primary", disabled: full }, "Allow"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const typed = origin.value.trim();
    const result = await submitting(form, message, () => save([...current.allowedOrigins, typed]), { earlierStatus: notice });
    if (!result.ok) return;
    const added = result.body.allowedOrigins.find((allowed) => !current.allowedOrigins.includes(allowed));
    replaceChildren(notice, resultBox(result, added ? `${added} may now show your meetings.` : `${typed} was already allowed.`));
    await reload();
  });
  return form;
}

function originList(current: MeetingEmbedding, notice: HTMLElement, save: Save, reload: () => Promise<void>) {
  const count = `${current.allowedOrigins.length} of ${identityLimits.embedOriginsMax}`;
  if (current.allowedOrigins.length === 0) {
    return h("p", { class: "empty" }, "No site may show your meetings: the join page refuses every frame (the default).");
  }
  return h(
    "table",
    { class: "embed-origins" },
    h("caption", {}, `Allowed sites (${count})`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Origin", "Actions"].map((label) => h("th", { scope: "col" }, label)),
      ),
    ),
    h(
      "tbody",
      {},
      current.allowedOrigins.map((allowed) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, h("code", {}, allowed)),
          h(
            "td",
            {},
            h(
              "button",
              {
                type: "button",
                class: "danger",
                "aria-label": `Remove ${allowed}`,
                onclick: async () => {
                  const sure = await confirmAction({
                    title: `Remove ${allowed}?`,
                    message: "Its pages can no longer show your meetings: the next time one loads, the browser refuses the frame.",
                    action: "Remove",
                  });
                  if (!sure) return;
                  replaceChildren(notice);
                  const result = await save(current.allowedOrigins.filter((other) => other !== allowed));
                  replaceChildren(notice, resultBox(result, `${allowed} may no longer show your meetings.`));
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

function snippet() {
  return h(
    "section",
    { class: "card", "aria-labelledby": "embed-snippet-title" },
    h("h2", { id: "embed-snippet-title" }, "The iframe"),
    h(
      "p",
      {},
      "Put a meeting's join URL in src. The allow attribute lets the meeting use the camera, the microphone and screen sharing, and play sound without a click.",
    ),
    h("pre", { class: "snippet" }, h("code", {}, SNIPPET)),
  );
}
