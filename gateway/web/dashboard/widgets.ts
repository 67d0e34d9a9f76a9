import { confirmAction } from "../shared/confirm-dialog.ts";
import { h, uniqueId, type Child } from "../shared/dom.ts";

// The dashboard's small components, built with the pages' one `h()` (../shared/dom.ts): labelled
// fields, notices, dates, the confirmed button (its dialog, shared with the meeting room, is
// ../shared/confirm-dialog.ts) and the once-shown secret. Text always goes in as text (never as
// markup), so a name such as `<script>` is shown, never run.

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function time(iso: string | null | undefined, never = "Never") {
  if (!iso) return h("span", { class: "muted" }, never);
  return h("time", { datetime: iso }, dateFormat.format(new Date(iso)));
}

/** A labelled input with its hint; returns the wrapper and the input. */
export function field(label: string, input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, hint?: string) {
  const id = input.id || uniqueId("field");
  input.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) input.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: id }, label), hint ? h("p", { class: "hint", id: hintId }, hint) : null, input);
}

export const alertBox = (message: string) => h("p", { class: "notice error", role: "alert" }, message);
export const statusBox = (message: string) => h("p", { class: "notice success", role: "status" }, message);

/** The notice for an API answer: the success message, or the API's own error. */
export const resultBox = (result: { ok: boolean; error: string }, success: string) => (result.ok ? statusBox(success) : alertBox(result.error));

/**
 * A button for an action that needs a second thought: it opens confirmAction and runs the
 * action only when the person chose it.
 */
export function confirmedButton(options: {
  label: string;
  ariaLabel: string;
  tone: "danger" | "secondary";
  confirm: { title: string; message: string; action: string };
  onConfirmed: () => Promise<void>;
}) {
  return h(
    "button",
    {
      type: "button",
      class: options.tone,
      "aria-label": options.ariaLabel,
      onclick: async () => {
        if (await confirmAction(options.confirm)) await options.onConfirmed();
      },
    },
    options.label,
  );
}

/**
 * A secret shown exactly once: the value, a copy button and a plain warning. `stored` says how we
 * keep it, so the warning tells the truth: API keys and client secrets are hashed, webhook signing
 * secrets encrypted (we need them to sign).
 */
export function secretPanel(options: { title: string; label: string; value: string; stored: "hashed" | "encrypted"; extra?: Node[] }) {
  const valueId = uniqueId("secret");
  const copyStatus = h("span", { class: "copy-status", role: "status" });
  const copy = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(options.value);
          copyStatus.textContent = "Copied.";
        } catch {
          const input = document.getElementById(valueId) as HTMLInputElement;
          input.select();
          copyStatus.textContent = "Select the value and copy it yourself (the browser refused).";
        }
      },
    },
    "Copy",
  );
  return h(
    "section",
    { class: "secret", "aria-labelledby": `${valueId}-title` },
    h("h3", { id: `${valueId}-title` }, options.title),
    h(
      "p",
      { class: "warning" },
      h("strong", {}, "Copy it now. "),
      options.stored === "hashed"
        ? "It is shown only this once: we store only a hash and cannot show it again."
        : "It is shown only this once: we keep it encrypted, only to sign deliveries, and never show it again.",
    ),
    (options.extra ?? []) as Child[],
    h(
      "div",
      { class: "secret-value" },
      h("label", { for: valueId }, options.label),
      h("input", { id: valueId, type: "text", readonly: true, value: options.value, spellcheck: "false", autocomplete: "off" }),
      copy,
      copyStatus,
    ),
  );
}

/**
 * A value a person copies (a join URL): read-only, labelled, with a Copy button that says whether
 * it worked, and selects the text for copying by hand when the browser refuses.
 */
export function copyField(label: string, value: string, hint?: string) {
  const input = h("input", { type: "text", readonly: true, value, spellcheck: "false", autocomplete: "off", id: uniqueId("copy") });
  const copyStatus = h("span", { class: "copy-status", role: "status" });
  const copy = h(
    "button",
    {
      type: "button",
      class: "secondary",
      "aria-label": `Copy: ${label}`,
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(value);
          copyStatus.textContent = "Copied.";
        } catch {
          input.select();
          copyStatus.textContent = "Select the text and copy it yourself (the browser refused).";
        }
      },
    },
    "Copy",
  );
  const hintId = hint ? `${input.id}-hint` : undefined;
  if (hintId) input.setAttribute("aria-describedby", hintId);
  return h(
    "div",
    { class: "copy-field" },
    h("label", { for: input.id }, label),
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    h("div", { class: "secret-value" }, input, copy, copyStatus),
  );
}
