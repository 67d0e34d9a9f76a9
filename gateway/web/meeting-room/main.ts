// The meeting room page's script (gateway/src/pages/meeting-page.ts renders the page and mounts
// it). One view at a time, like livekit-examples/meet's PageClientImpl: pre-join → room →
// left/ended/removed/disconnected; the API's refusals (not found, ended, cancelled) end there too.
import "./room.css";
import { connectEmbeddingParent } from "./embed-events.ts";
import { mountPreJoin } from "./prejoin-view.ts";
import { mountRoom } from "./room-view.ts";
import { mountOutcome } from "./state-views.ts";
import type { JoinedSession, Meeting, Navigation, Outcome } from "./meeting.ts";

function start() {
  const main = document.getElementById("meeting");
  const view = document.getElementById("view");
  if (!main || !view || !main.dataset.meetingId) return;
  const meeting: Meeting = {
    id: main.dataset.meetingId,
    title: main.dataset.title ?? "",
    status: main.dataset.status ?? "",
    lobby: main.dataset.lobby === "on",
    ...personalLink(),
  };
  if (meeting.status !== "scheduled" && meeting.status !== "live") return; // the server rendered the final state

  showLocalTimes();
  // Events for the page that embeds the room, when its origin is allowed (embed-events.ts).
  const embedding = connectEmbeddingParent(main);
  let unmount: () => void = () => undefined;
  const show = (name: string, mount: () => () => void) => {
    unmount();
    document.body.className = `view-${name}`;
    unmount = mount();
    // A new view: move the focus to its heading so keyboard and screen-reader users start there.
    if (name !== "prejoin") document.getElementById("view-heading")?.focus();
  };

  const navigation: Navigation = {
    preJoin: () => show("prejoin", () => mountPreJoin(view, meeting, navigation)),
    room(session: JoinedSession) {
      show("room", () => mountRoom(view, session, navigation));
      embedding.joined(session);
    },
    outcome(outcome: Outcome) {
      show("state", () => mountOutcome(view, meeting, outcome, navigation));
      embedding.outcome(outcome);
    },
    setStatus(status) {
      const badge = document.getElementById("meeting-status");
      if (!badge) return;
      badge.hidden = status === "";
      badge.className = `status status-${status}`;
      badge.textContent = status.charAt(0).toUpperCase() + status.slice(1);
    },
  };
  navigation.preJoin();
}

/**
 * A personal link's secret (`#link=…`): kept in memory for the join, and taken out of the address
 * bar so it is not shared along with a screenshot or a copied address.
 */
function personalLink(): { link?: string } {
  const link = new URLSearchParams(location.hash.slice(1)).get("link");
  if (!link) return {};
  history.replaceState(null, "", location.pathname + location.search);
  return { link };
}

/** The server writes times in UTC; show them in the viewer's own time zone. */
function showLocalTimes() {
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" });
  for (const element of document.querySelectorAll<HTMLTimeElement>("time[datetime]")) {
    const date = new Date(element.dateTime);
    if (!Number.isNaN(date.getTime())) element.textContent = format.format(date);
  }
}

start();
