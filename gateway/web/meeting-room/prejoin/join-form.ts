import { h, icon, replaceChildren, setAttributes } from "../../shared/dom.ts";
import type { JoinRefusal, LinkHolder } from "../api.ts";
import { iconPaths } from "../icons.ts";
import { rememberedName } from "../meeting.ts";
import { deviceLabels, type DeviceKind } from "./devices.ts";

export interface JoinForm {
  element: HTMLFormElement;
  nameInput: HTMLInputElement;
  /** The Join button's words follow the devices that cannot be used ("Join without camera"). */
  setUnusableDevices(unusable: DeviceKind[]): void;
  showNameError(message: string): void;
  clearErrors(): void;
  showJoinError(heading: string, message: string, requestId?: string): void;
  /** While joining the button is busy ("Joining…") and further submits are ignored. */
  setJoining(value: boolean): void;
  /** 429: the API's words, and the Join button waits out Retry-After. */
  waitBeforeRetry(refusal: JoinRefusal): void;
  /** A personal link's holder: their name prefilled (unless one was typed meanwhile), their role said. */
  showHolder(holder: LinkHolder): void;
  /** Joining or waiting out a Retry-After: a submit now does nothing. */
  busy(): boolean;
  dispose(): void;
}

/** The name field, the Join button with its status, and the errors a join can meet. `onSubmit` hears a submit while not busy. */
export function createJoinForm(onSubmit: () => void): JoinForm {
  let joining = false;
  let waiting = false;
  let retryTimer: number | undefined;
  let unusable: DeviceKind[] = [];

  const nameInput = h("input", {
    id: "display-name",
    name: "displayName",
    type: "text",
    autocomplete: "name",
    required: true,
    spellcheck: "false",
    "aria-describedby": "display-name-hint",
  });
  nameInput.value = rememberedName.get();
  let nameTyped = false;
  nameInput.addEventListener("input", () => (nameTyped = true));
  const holderNote = h("p", { class: "link-holder", hidden: true });
  const nameError = h("p", { class: "field-error", id: "display-name-error", hidden: true });
  const joinError = h("div", { class: "join-error", role: "alert" });
  const joinButton = h("button", { type: "submit", class: "button primary join-button" }, "Join meeting");
  const joinStatus = h("p", { class: "join-status", role: "status" });
  const element = h(
    "form",
    { class: "join-form", novalidate: true, "aria-labelledby": "view-heading" },
    h("h2", { id: "view-heading", tabindex: "-1" }, "Ready to join?"),
    h("p", { class: "lead" }, "Check your camera and microphone, then join. Nobody sees or hears you before you join."),
    holderNote,
    h(
      "div",
      { class: "field" },
      h("label", { for: "display-name" }, "Your name"),
      nameInput,
      h("p", { class: "field-hint", id: "display-name-hint" }, "Shown to everyone in the meeting, 1 to 64 characters."),
      nameError,
    ),
    joinError,
    h("div", { class: "join-actions" }, joinButton, joinStatus),
  );
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!joining && !waiting) onSubmit();
  });

  function labelJoinButton() {
    if (joining) return;
    joinButton.textContent =
      unusable.length === 2
        ? "Join without camera and microphone"
        : unusable.length === 1
          ? `Join without ${deviceLabels[unusable[0]!].toLowerCase()}`
          : "Join meeting";
  }

  const showJoinError = (heading: string, message: string, requestId?: string) => {
    replaceChildren(joinError, errorNotice(heading, message, requestId));
    // On a phone the notice is below the fold: bring it into view (role=alert reads it out).
    joinError.scrollIntoView({ block: "nearest" });
  };

  return {
    element,
    nameInput,
    setUnusableDevices(devices) {
      unusable = devices;
      labelJoinButton();
    },
    showNameError(message) {
      nameError.textContent = message;
      nameError.hidden = false;
      setAttributes(nameInput, { "aria-invalid": "true", "aria-describedby": "display-name-hint display-name-error" });
      nameInput.focus();
    },
    clearErrors() {
      nameError.hidden = true;
      nameError.textContent = "";
      setAttributes(nameInput, { "aria-invalid": null, "aria-describedby": "display-name-hint" });
      joinError.replaceChildren();
    },
    showJoinError,
    // aria-disabled rather than disabled throughout: the focused button keeps the focus.
    setJoining(value) {
      joining = value;
      setAttributes(joinButton, { "aria-disabled": value ? "true" : null });
      joinStatus.textContent = value ? "Joining…" : "";
      if (value) joinButton.textContent = "Joining…";
      else labelJoinButton();
    },
    waitBeforeRetry(refusal) {
      let seconds = refusal.retryAfterSeconds ?? 5;
      showJoinError("Too many attempts", refusal.error);
      const countdown = h("p", { class: "countdown" });
      joinError.querySelector(".notice > div:last-child")?.appendChild(countdown);
      waiting = true;
      setAttributes(joinButton, { "aria-disabled": "true" });
      const tick = () => {
        if (seconds <= 0) {
          countdown.textContent = "You can try again now.";
          waiting = false;
          setAttributes(joinButton, { "aria-disabled": null });
          return;
        }
        countdown.textContent = `You can try again in ${seconds} s.`;
        seconds -= 1;
        retryTimer = window.setTimeout(tick, 1_000);
      };
      tick();
    },
    showHolder(holder) {
      if (holder.name && !nameTyped) nameInput.value = holder.name;
      holderNote.textContent = holderWords[holder.role];
      holderNote.hidden = false;
    },
    busy: () => joining || waiting,
    dispose() {
      window.clearTimeout(retryTimer);
    },
  };
}

const holderWords: Record<LinkHolder["role"], string> = {
  host: "You are joining with your host link: you can let people in, mute or remove them, and end the meeting.",
  attendee: "You are joining with your personal invitation link.",
  guest: "You are joining with a personal guest link.",
};

/** Why the join failed, with the request's reference when the API gave one. */
function errorNotice(heading: string, message: string, requestId?: string) {
  return h(
    "div",
    { class: "notice notice-error" },
    h("div", { class: "notice-icon" }, icon(iconPaths("warning"))),
    h(
      "div",
      {},
      h("p", { class: "notice-title" }, heading),
      h("p", {}, message),
      requestId ? h("p", { class: "reference" }, "Reference: ", h("code", {}, requestId)) : null,
    ),
  );
}
