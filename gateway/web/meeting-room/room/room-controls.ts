import { MediaDeviceFailure } from "livekit-client";
import { h, icon, setAttributes } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";

export type Control = "microphone" | "camera" | "screen";
const controlsInOrder = ["microphone", "camera", "screen"] as const;

export interface RoomControls {
  /** The labelled group of buttons: microphone, camera, screen share (where the browser can), settings, Leave. */
  element: HTMLElement;
  /** Shows each control as on or off, and busy while its change is under way. */
  update(on: Record<Control, boolean>, pending: ReadonlySet<Control>): void;
  /** Shows the hand as raised (the server's word, from the person's `hand` attribute) or down. */
  showHand(raised: boolean): void;
  /** The reactions button, which the picker (room/reactions.ts) opens beside. */
  reactButton: HTMLButtonElement;
}

/** The room's control bar; it only reports presses (`onToggle`, `onSettings`, `onLeave`): the room decides. */
export function createRoomControls(handlers: {
  onToggle(control: Control): void;
  onHand(): void;
  onReact(): void;
  onSettings(): void;
  onLeave(): void;
}): RoomControls {
  const controlButton = (control: Control, label: string) => {
    const button = h(
      "button",
      { type: "button", class: `control control-${control}`, "aria-pressed": "false" },
      h("span", { class: "control-icon" }),
      h("span", { class: "control-label" }, label),
    );
    button.addEventListener("click", () => handlers.onToggle(control));
    return button;
  };
  const buttons: Record<Control, HTMLButtonElement> = {
    microphone: controlButton("microphone", "Microphone"),
    camera: controlButton("camera", "Camera"),
    screen: controlButton("screen", "Share screen"),
  };
  const leave = h(
    "button",
    { type: "button", class: "control control-leave" },
    h("span", { class: "control-icon" }, icon(iconPaths("leave"))),
    h("span", { class: "control-label" }, "Leave"),
  );
  leave.addEventListener("click", () => handlers.onLeave());
  // Camera, microphone and speaker (room/device-settings.ts).
  const settings = h(
    "button",
    { type: "button", class: "control control-settings", "aria-haspopup": "dialog" },
    h("span", { class: "control-icon" }, icon(iconPaths("settings"))),
    h("span", { class: "control-label" }, "Settings"),
  );
  settings.addEventListener("click", () => handlers.onSettings());
  const hand = h(
    "button",
    { type: "button", class: "control control-hand", "data-raised": "false", "aria-keyshortcuts": "Alt+Y" },
    h("span", { class: "control-icon" }, icon(iconPaths("hand"))),
    h("span", { class: "control-label" }, "Raise hand"),
  );
  hand.addEventListener("click", () => handlers.onHand());
  const reactButton = h(
    "button",
    { type: "button", class: "control control-react", "aria-expanded": "false", "aria-controls": "reaction-picker" },
    h("span", { class: "control-icon" }, icon(iconPaths("react"))),
    h("span", { class: "control-label" }, "React"),
  );
  reactButton.addEventListener("click", () => handlers.onReact());
  // Browsers without screen capture (most phones) get no button for it.
  const canShareScreen = typeof navigator.mediaDevices?.getDisplayMedia === "function";
  const element = h(
    "div",
    { class: "controls", role: "group", "aria-label": "Meeting controls" },
    buttons.microphone,
    buttons.camera,
    canShareScreen ? buttons.screen : null,
    hand,
    reactButton,
    settings,
    leave,
  );

  return {
    element,
    reactButton,
    showHand(raised) {
      // The name says what a press does (as in Meet), rather than a pressed state that would contradict it.
      setAttributes(hand, { "data-raised": raised ? "true" : "false" });
      hand.querySelector(".control-label")!.textContent = raised ? "Lower hand" : "Raise hand";
    },
    update(on, pending) {
      for (const control of controlsInOrder) {
        const button = buttons[control];
        button.querySelector(".control-icon")!.replaceChildren(icon(iconPaths(control, control !== "screen" && !on[control])));
        setAttributes(button, { "aria-pressed": on[control] ? "true" : "false", "aria-busy": pending.has(control) ? "true" : null });
      }
    },
  };
}

/** What to tell the person when turning a control on failed; undefined when there is nothing to say. */
export function controlProblem(control: Control, error: unknown): string | undefined {
  const failure = MediaDeviceFailure.getFailure(error);
  const what = control === "microphone" ? "microphone" : control === "camera" ? "camera" : "screen sharing";
  // Cancelling the screen picker is a choice, not a problem.
  if (control === "screen" && failure === MediaDeviceFailure.PermissionDenied) return undefined;
  if (failure === MediaDeviceFailure.PermissionDenied)
    return `Your browser blocked the ${what}. Allow it for this site in the browser's settings, then try again.`;
  if (failure === MediaDeviceFailure.NotFound) return `No ${what} was found.`;
  if (failure === MediaDeviceFailure.DeviceInUse) return `The ${what} is in use by another application.`;
  return `The ${what} could not be started.`;
}
