import { h, uniqueId, type Child } from "../../shared/dom.ts";

export interface RoomDialog {
  element: HTMLDialogElement;
  /** Opens it modally (focus moves in and is trapped; Escape closes); `focus` gets the focus, else Close. */
  open(focus?: HTMLElement): void;
  close(): void;
  isOpen(): boolean;
}

/**
 * A modal <dialog> of the room (settings, keyboard shortcuts): a heading that names it, the
 * content, and a Close button. The browser traps the focus and closes on Escape; on closing, the
 * focus goes back to what had it (the control that opened it).
 */
export function createRoomDialog(options: { title: string; className: string; content: Child[] }): RoomDialog {
  const titleId = uniqueId("dialog");
  const close = h("button", { type: "button", class: "button secondary" }, "Close");
  const element = h(
    "dialog",
    { class: `room-dialog ${options.className}`, "aria-labelledby": titleId },
    h("h2", { id: titleId }, options.title),
    ...options.content,
    h("div", { class: "actions" }, close),
  );
  let returnFocus: HTMLElement | null = null;
  close.addEventListener("click", () => element.close());
  element.addEventListener("close", () => {
    returnFocus?.focus();
    returnFocus = null;
  });
  return {
    element,
    open(focus) {
      if (element.open) return;
      returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      if (!element.isConnected) document.body.appendChild(element);
      element.showModal();
      (focus ?? close).focus();
    },
    close: () => element.close(),
    isOpen: () => element.open,
  };
}
