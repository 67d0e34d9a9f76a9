import { replaceChildren } from "../../shared/dom.ts";

/** What every part of the side panel shares: the panel's status line for the outcome of an action. */
export interface PanelFeedback {
  /** Runs a room API call and says how it went (the server's refusal in its own words). */
  act(description: string, call: Promise<{ ok: boolean; error?: string }>): Promise<void>;
  say(text: string): void;
}

export function panelFeedback(element: HTMLElement): PanelFeedback {
  const say = (text: string) => {
    element.textContent = text;
  };
  return {
    say,
    async act(description, call) {
      const result = await call;
      say(result.ok ? description : (result.error ?? "That did not work."));
    },
  };
}

/**
 * Replaces a list's items, keeping the keyboard focus on the same control (found again by its
 * accessible name), so a refresh never throws a keyboard user out of the list.
 */
export function rerender(list: HTMLElement, items: Node[]) {
  const focused = document.activeElement;
  const label = focused instanceof HTMLElement && list.contains(focused) ? focused.getAttribute("aria-label") : null;
  replaceChildren(list, ...items);
  if (label) [...list.querySelectorAll<HTMLElement>("[aria-label]")].find((element) => element.getAttribute("aria-label") === label)?.focus();
}
