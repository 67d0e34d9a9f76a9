import { h, icon } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";
import { deviceLabels, type DeviceKind, type DeviceState } from "./devices.ts";

export interface PermissionNotice {
  element: HTMLElement;
  /** Shown while some device cannot be used, saying why and what to do. */
  update(unusable: DeviceKind[], states: Readonly<Record<DeviceKind, DeviceState>>): void;
}

/** Explains a blocked or unavailable camera or microphone, offers "Try again", and says joining works without them. */
export function createPermissionNotice(onRetry: () => void): PermissionNotice {
  const heading = h("h3", { id: "permission-heading" });
  const text = h("p");
  const retry = h("button", { type: "button", class: "button secondary" }, "Try again");
  retry.addEventListener("click", onRetry);
  const element = h(
    "section",
    { class: "notice notice-warning", "aria-labelledby": "permission-heading", hidden: true },
    h("div", { class: "notice-icon" }, icon(iconPaths("warning"))),
    h("div", {}, heading, text, h("p", { class: "notice-actions" }, retry)),
  );
  return {
    element,
    update(unusable, states) {
      element.hidden = unusable.length === 0;
      if (unusable.length === 0) return;
      const what = unusable.length === 2 ? "Camera and microphone" : deviceLabels[unusable[0]!];
      const refused = unusable.some((kind) => states[kind] === "blocked");
      heading.textContent = refused ? `${what} ${unusable.length === 2 ? "are" : "is"} blocked` : `${what} not available`;
      text.textContent = refused
        ? "Your browser did not allow this page to use them. Allow them for this site in the address bar or the site settings, then choose Try again. Or join without them: you will still see and hear everyone."
        : "They could not be started (not found, or in use by another application). Connect or free them, then choose Try again. Or join without them: you will still see and hear everyone.";
    },
  };
}
