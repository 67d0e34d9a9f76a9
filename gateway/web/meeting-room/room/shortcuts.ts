import { h } from "../../shared/dom.ts";
import { createRoomDialog, type RoomDialog } from "./room-dialog.ts";

export type ShortcutAction = "microphone" | "camera" | "hand" | "leave" | "help";

/** On a Mac the command key takes Ctrl's place, as in Google Meet. */
const onMac = /Mac|iPhone|iPad/.test(navigator.platform);
const command = onMac ? "⌘" : "Ctrl";
const option = onMac ? "Option" : "Alt";

interface Shortcut {
  action: ShortcutAction;
  description: string;
  /** The keys as shown, one entry per key. */
  keys: string[];
  matches(event: KeyboardEvent): boolean;
}

const commandKey = (event: KeyboardEvent) => (onMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey);

/**
 * The room's shortcuts: Google Meet's Ctrl/⌘+D (microphone) and Ctrl/⌘+E (camera), Zoom's Alt+Y
 * (raise or lower the hand, one modifier as leave's) and Alt+Q (leave, after a confirmation; Zoom's Mac ⌘+W would close the browser tab instead), and `?` for
 * this list (Meet's Ctrl/⌘+/ too). Matched by the physical key (`code`) where a modifier is held:
 * Option+Q types "œ" on a Mac.
 */
export const shortcuts: readonly Shortcut[] = [
  {
    action: "microphone",
    description: "Turn the microphone on or off",
    keys: [command, "D"],
    matches: (event) => commandKey(event) && !event.altKey && !event.shiftKey && event.code === "KeyD",
  },
  {
    action: "camera",
    description: "Turn the camera on or off",
    keys: [command, "E"],
    matches: (event) => commandKey(event) && !event.altKey && !event.shiftKey && event.code === "KeyE",
  },
  {
    action: "hand",
    description: "Raise or lower your hand",
    keys: [option, "Y"],
    matches: (event) => event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.code === "KeyY",
  },
  {
    action: "leave",
    description: "Leave the meeting (asks first)",
    keys: [option, "Q"],
    matches: (event) => event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.code === "KeyQ",
  },
  {
    action: "help",
    description: "Show these shortcuts",
    keys: ["?"],
    matches: (event) => (event.key === "?" && !event.ctrlKey && !event.metaKey && !event.altKey) || (commandKey(event) && event.code === "Slash"),
  },
];

/** Where keys are text being typed (chat, any field): no shortcut acts there. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest("input, textarea, select, [contenteditable]") !== null;
}

export interface KeyboardShortcuts {
  help: RoomDialog;
  dispose(): void;
}

/**
 * Listens for the shortcuts on the page (not while typing, nor while a dialog is open: the keys
 * then belong to it) and offers the help dialog that lists them.
 */
export function listenForShortcuts(act: (action: ShortcutAction) => void): KeyboardShortcuts {
  const list = h(
    "dl",
    { class: "shortcut-list" },
    ...shortcuts.map((shortcut) =>
      h(
        "div",
        { class: "shortcut" },
        h("dt", {}, ...shortcut.keys.flatMap((key, index) => [index > 0 ? " + " : null, h("kbd", {}, key)])),
        h("dd", {}, shortcut.description),
      ),
    ),
  );
  const help = createRoomDialog({
    title: "Keyboard shortcuts",
    className: "shortcuts-dialog",
    content: [list, h("p", { class: "field-hint" }, "Shortcuts do nothing while you type in the chat or any other field.")],
  });

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.repeat || typing(event.target) || document.querySelector("dialog[open]")) return;
    const shortcut = shortcuts.find((candidate) => candidate.matches(event));
    if (!shortcut) return;
    // Ctrl+D would bookmark the page and Ctrl+E search: in the room the meeting's meaning wins.
    event.preventDefault();
    if (shortcut.action === "help") help.open();
    else act(shortcut.action);
  };
  document.addEventListener("keydown", onKeyDown);
  return {
    help,
    dispose() {
      document.removeEventListener("keydown", onKeyDown);
      help.element.remove();
    },
  };
}
