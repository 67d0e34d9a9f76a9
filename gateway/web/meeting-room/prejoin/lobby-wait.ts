import { h } from "../../shared/dom.ts";
import { requestLobbyStatus, type JoinGrant } from "../api.ts";
import type { Meeting, Navigation } from "../meeting.ts";

const POLL_MS = 1_500;
const WAITING_TEXT = "A host of this meeting will let you in soon. Keep this page open; you will join as soon as you are admitted.";
const LOCKED_TEXT = "A host locked the meeting: nobody new can enter for now. You are still waiting, and will join if a host unlocks it and lets you in.";

/**
 * The meeting has a lobby: in place of the join form, say so (the title stays in view above) and
 * ask how it stands every second and a half until a host admits (the grant), denies, or the
 * meeting closes. Resolves with the grant, or undefined when the wait ended otherwise (the outcome
 * is shown) or the view went away (`stopped()`).
 */
export async function waitInLobby(
  form: HTMLElement,
  meeting: Meeting,
  ticket: string,
  navigation: Navigation,
  stopped: () => boolean,
): Promise<JoinGrant | undefined> {
  const heading = h("h2", { id: "view-heading", tabindex: "-1" }, "Waiting to be let in");
  const text = h("p", { class: "lead" }, WAITING_TEXT);
  const lobby = h("section", { class: "card lobby-wait", role: "status", "aria-live": "polite", "aria-labelledby": "view-heading" }, heading, text);
  form.replaceWith(lobby);
  heading.focus();
  for (;;) {
    await new Promise((resolve) => window.setTimeout(resolve, POLL_MS));
    if (stopped()) return undefined;
    const answer = await requestLobbyStatus(meeting.id, ticket);
    if (stopped()) return undefined;
    if (!answer.ok) {
      if (answer.status === 0 || answer.status >= 500 || answer.status === 429) continue; // passing trouble: keep waiting
      navigation.outcome({ kind: "refused", status: answer.status, message: answer.error });
      return undefined;
    }
    if (answer.status === "admitted") {
      heading.textContent = "You were admitted";
      text.textContent = "Joining the meeting…";
      return answer.grant;
    }
    if (answer.status === "denied") {
      navigation.outcome({ kind: "denied" });
      return undefined;
    }
    lobby.dataset.state = answer.status;
    heading.textContent = answer.status === "locked" ? "The meeting is locked" : "Waiting to be let in";
    text.textContent = answer.status === "locked" ? LOCKED_TEXT : WAITING_TEXT;
  }
}
