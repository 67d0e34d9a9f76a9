import { h, uniqueId } from "./dom.ts";

/**
 * A confirmation for a destructive action, as a modal <dialog> (focus is trapped and Escape
 * cancels natively), on the dashboard and in the meeting room alike. Resolves true only when the
 * person chose the action; Cancel has the focus, so a stray Enter does no harm.
 */
export function confirmAction(options: { title: string; message: string; action: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = uniqueId("confirm");
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": titleId },
      h("h2", { id: titleId }, options.title),
      h("p", {}, options.message),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "button secondary", value: "cancel", onclick: () => dialog.close("cancel") }, "Cancel"),
        h("button", { type: "button", class: "button danger", value: "confirm", onclick: () => dialog.close("confirm") }, options.action),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "confirm");
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    (dialog.querySelector("button.secondary") as HTMLButtonElement).focus();
  });
}
