import { MINIMUM_LIVEKIT_SERVER_VERSION } from "@svc/platform/contract";
import { h, replaceChildren } from "../shared/dom.ts";
import type { Meeting, Navigation, Outcome } from "./meeting.ts";

interface StateContent {
  heading: string;
  text: string;
  /** A state one may leave again offers to join again. */
  rejoin: boolean;
  /** The meeting's status as this state reveals it, for the badge under the title ("" hides it). */
  status?: string;
}

function contentOf(outcome: Outcome): StateContent {
  switch (outcome.kind) {
    case "left":
      return { heading: "You left the meeting", text: "You can close this page, or join again while the meeting goes on.", rejoin: true };
    case "ended":
      return { heading: "The meeting has ended", text: "It was ended for everyone. You can close this page.", rejoin: false, status: "ended" };
    case "removed":
      return { heading: "You were removed", text: "You were removed from the meeting. If you think this was a mistake, ask the organizer.", rejoin: false };
    case "denied":
      return { heading: "You were not let in", text: "A host of this meeting turned down your request to join.", rejoin: false };
    case "disconnected":
      return { heading: "You were disconnected", text: outcome.detail, rejoin: true };
    case "unsupported-media-server":
      return {
        heading: "This meeting's media server is out of date",
        text:
          `It runs LiveKit ${outcome.version}, and this meeting room needs LiveKit ${MINIMUM_LIVEKIT_SERVER_VERSION} or later. ` +
          "Joining again will not help until it is upgraded: please tell the meeting's organizer.",
        rejoin: false,
      };
    case "refused":
      // The API's own words as the heading: "This meeting has ended", "This meeting was cancelled"…
      return outcome.status === 404
        ? { heading: "Meeting not found", text: outcome.message, rejoin: false }
        : outcome.status === 403
          ? { heading: outcome.message, text: "If you think this is a mistake, ask the meeting's organizer.", rejoin: false }
          : // 410 is ended or cancelled; the API's words say which, the badge would only guess.
            { heading: outcome.message, text: "It can no longer be joined. You can close this page.", rejoin: false, status: "" };
  }
}

/** The states after (or instead of) the room: left, ended, removed, disconnected, refused. */
export function mountOutcome(container: HTMLElement, _meeting: Meeting, outcome: Outcome, navigation: Navigation): () => void {
  const content = contentOf(outcome);
  const rejoin = content.rejoin ? h("button", { type: "button", class: "button primary" }, "Join again") : null;
  rejoin?.addEventListener("click", () => navigation.preJoin());
  replaceChildren(
    container,
    h(
      "section",
      { class: `card state state-${outcome.kind}`, "aria-labelledby": "view-heading" },
      h("h2", { id: "view-heading", tabindex: "-1" }, content.heading),
      h("p", {}, content.text),
      rejoin ? h("p", { class: "state-actions" }, rejoin) : null,
    ),
  );
  if (content.status !== undefined) navigation.setStatus(content.status);
  return () => undefined;
}
