import { confirmAction } from "../../shared/confirm-dialog.ts";
import { h, setAttributes } from "../../shared/dom.ts";
import type { LobbyList, RoomApi } from "../room-api.ts";
import { rerender, type PanelFeedback } from "./panel-tools.ts";

/** How often a host's page asks for the lobby when no knock arrived (a knock asks at once). */
const LOBBY_POLL_MS = 5_000;

/** A short knock (Web Audio: no sound file to load) when someone starts waiting. */
function knock() {
  try {
    const context = new AudioContext();
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, context.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, context.currentTime + 0.35);
    tone.connect(gain).connect(context.destination);
    tone.start();
    tone.stop(context.currentTime + 0.35);
    tone.onended = () => void context.close();
  } catch {
    // no audio output: the badge and the announcement still tell
  }
}

/**
 * A host's lobby queue: who waits (a knock, a badge and an announcement for each newcomer), Admit
 * and Deny for each, Deny all (a lobby flooded by strangers), and the meeting's Lock and
 * End-for-everyone buttons.
 */
export function createLobbyQueue(api: RoomApi, feedback: PanelFeedback, announce: (text: string) => void) {
  let disposed = false;
  let timer: number | undefined;
  let knownWaiting = new Set<string>();
  let shownWaiting = "";

  const badge = h("span", { class: "badge", hidden: true });
  const list = h("ul", { class: "lobby-queue", "aria-label": "Waiting to join" });
  const more = h("p", { class: "lobby-more", hidden: true });
  const denyAllButton = h("button", { type: "button", class: "button small", hidden: true }, "Deny all");
  const lockButton = h("button", { type: "button", class: "button small secondary", "aria-pressed": "false" }, "Lock meeting");
  const endButton = h("button", { type: "button", class: "button small danger" }, "End meeting for everyone");
  const element = h(
    "section",
    { class: "panel-section lobby", "aria-labelledby": "lobby-heading" },
    h("h3", { id: "lobby-heading" }, "Waiting to join ", badge),
    list,
    more,
    h("p", { class: "host-controls" }, denyAllButton, lockButton, endButton),
  );

  function waitingItem(entry: LobbyList["waiting"][number]) {
    const admit = h("button", { type: "button", class: "button small primary", "aria-label": `Admit ${entry.displayName}` }, "Admit");
    const deny = h("button", { type: "button", class: "button small", "aria-label": `Deny ${entry.displayName}` }, "Deny");
    admit.addEventListener("click", () => void feedback.act(`Admitted ${entry.displayName}.`, api.decide(entry.entryId, true)).then(refresh));
    deny.addEventListener("click", () => void feedback.act(`Denied ${entry.displayName}.`, api.decide(entry.entryId, false)).then(refresh));
    return h("li", { class: "waiting" }, h("span", { class: "person-name" }, entry.displayName), admit, deny);
  }

  function render(lobby: LobbyList) {
    const fresh = lobby.waiting.filter((entry) => !knownWaiting.has(entry.entryId));
    if (fresh.length > 0) {
      knock();
      announce(`${fresh.map((entry) => entry.displayName).join(", ")} ${fresh.length === 1 ? "is" : "are"} waiting to join`);
    }
    knownWaiting = new Set(lobby.waiting.map((entry) => entry.entryId));
    // The count of everyone waiting, which may be more than the list shows (the longest waiting and the newest).
    badge.hidden = lobby.waitingCount === 0;
    badge.textContent = String(lobby.waitingCount);
    setAttributes(badge, { "aria-label": `${lobby.waitingCount} waiting` });
    denyAllButton.hidden = lobby.waitingCount < 2;
    const unlisted = lobby.waitingCount - lobby.waiting.length;
    more.hidden = unlisted <= 0;
    more.textContent = unlisted > 0 ? `…and ${unlisted} more waiting between the first and the newest shown.` : "";
    setAttributes(lockButton, { "aria-pressed": lobby.locked ? "true" : "false" });
    lockButton.textContent = lobby.locked ? "Unlock meeting" : "Lock meeting";
    // The same people waiting: leave the buttons as they are (a click in progress stays on its button).
    const waiting = lobby.waiting.map((entry) => entry.entryId).join(",");
    if (waiting === shownWaiting && list.childElementCount > 0) return;
    shownWaiting = waiting;
    rerender(list, lobby.waiting.length === 0 ? [h("li", { class: "empty" }, "Nobody is waiting.")] : lobby.waiting.map(waitingItem));
  }

  async function refresh() {
    if (disposed) return;
    window.clearTimeout(timer);
    const result = await api.lobby();
    if (result.ok && !disposed) render(result.body);
    if (!disposed) timer = window.setTimeout(() => void refresh(), LOBBY_POLL_MS);
  }

  denyAllButton.addEventListener("click", () => void feedback.act("Everyone waiting was turned away.", api.denyAll()).then(refresh));
  lockButton.addEventListener("click", () => {
    const lock = lockButton.getAttribute("aria-pressed") !== "true";
    void feedback.act(lock ? "The meeting is locked: nobody new can enter." : "The meeting is unlocked.", api.lock(lock)).then(refresh);
  });
  // Ending is for everyone and for good (nobody can enter again): asked first.
  endButton.addEventListener("click", () => {
    void confirmAction({
      title: "End the meeting for everyone?",
      message: "Everyone leaves the room now, and nobody can enter this meeting again.",
      action: "End meeting",
    }).then((confirmed) => (confirmed ? feedback.act("Ending the meeting for everyone…", api.end()) : undefined));
  });
  void refresh();

  return {
    element,
    /** Someone knocked (the server's lobby packet): ask now rather than at the next poll. */
    refresh: () => void refresh(),
    dispose() {
      disposed = true;
      window.clearTimeout(timer);
    },
  };
}
