import { RoomEvent, type Participant, type Room } from "livekit-client";
import { meetingLimits } from "@svc/platform/contract";
import { h, replaceChildren, setAttributes } from "../shared/dom.ts";
import type { JoinGrant } from "./api.ts";
import { displayNameOf } from "./participant-tile.ts";
import { roomApi, type ChatMessage, type LobbyList } from "./room-api.ts";

/** Data-packet topics the server sends (services/meeting/src/room/room-actions.ts). */
const TOPICS = { chat: "svc.chat", lobby: "svc.lobby" } as const;
const LOBBY_POLL_MS = 5_000;

const roleOf = (participant: Participant) => participant.attributes.role ?? "guest";
const roleLabel: Record<string, string> = { host: "Host", attendee: "Attendee", guest: "Guest" };

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
 * The room's side panel: the people in the room (names, roles, microphones; host actions for
 * hosts), the lobby queue (hosts: who waits, with a knock and a badge; admit, deny, lock), and
 * the chat. Every action is the room API's, which the server authorizes.
 */
export function mountSidePanel(room: Room, grant: JoinGrant, announce: (text: string) => void) {
  const api = roomApi(grant.meeting.id, grant.roomSession);
  const isHost = grant.role === "host";
  let disposed = false;
  let lobbyTimer: number | undefined;
  let knownWaiting = new Set<string>();

  const feedback = h("p", { class: "panel-feedback", role: "status" });
  const say = (text: string) => {
    feedback.textContent = text;
  };

  // People.
  const people = h("ul", { class: "people", "aria-label": "People in the meeting" });
  const peopleHeading = h("h3", { id: "people-heading" }, "People");

  // Lobby (hosts).
  const lobbyBadge = h("span", { class: "badge", hidden: true });
  const lobbyList = h("ul", { class: "lobby-queue", "aria-label": "Waiting to join" });
  const lockButton = h("button", { type: "button", class: "button secondary", "aria-pressed": "false" }, "Lock meeting");
  const endButton = h("button", { type: "button", class: "button danger" }, "End meeting for everyone");
  const lobbySection = isHost
    ? h(
        "section",
        { class: "panel-section lobby", "aria-labelledby": "lobby-heading" },
        h("h3", { id: "lobby-heading" }, "Waiting to join ", lobbyBadge),
        lobbyList,
        h("p", { class: "host-controls" }, lockButton, endButton),
      )
    : null;

  // Chat.
  const log = h("ol", { class: "chat-log", role: "log", "aria-live": "polite", "aria-labelledby": "chat-heading" });
  const input = h("textarea", {
    id: "chat-input",
    name: "text",
    rows: 2,
    maxlength: meetingLimits.chatMessageMaxLength,
    "aria-describedby": "chat-hint",
  });
  const send = h("button", { type: "submit", class: "button primary" }, "Send");
  const chatForm = h(
    "form",
    { class: "chat-form" },
    h("label", { for: "chat-input" }, "Message"),
    input,
    h("p", { class: "field-hint", id: "chat-hint" }, `Up to ${meetingLimits.chatMessageMaxLength} characters. Nothing is kept after the meeting ends.`),
    send,
  );

  const element = h(
    "aside",
    { class: "side-panel", "aria-label": "People and chat" },
    lobbySection,
    h("section", { class: "panel-section", "aria-labelledby": "people-heading" }, peopleHeading, people),
    h("section", { class: "panel-section chat", "aria-labelledby": "chat-heading" }, h("h3", { id: "chat-heading" }, "Chat"), log, chatForm),
    feedback,
  );

  /**
   * Replaces a list's items, keeping the keyboard focus on the same control (found again by its
   * accessible name), so a refresh never throws a keyboard user out of the list.
   */
  function rerender(list: HTMLElement, items: Node[]) {
    const focused = document.activeElement;
    const label = focused instanceof HTMLElement && list.contains(focused) ? focused.getAttribute("aria-label") : null;
    replaceChildren(list, ...items);
    if (label) [...list.querySelectorAll<HTMLElement>("[aria-label]")].find((element) => element.getAttribute("aria-label") === label)?.focus();
  }

  async function act(description: string, call: Promise<{ ok: boolean; error?: string }>) {
    const result = await call;
    say(result.ok ? description : (result.error ?? "That did not work."));
  }

  function hostActions(participant: Participant) {
    const name = displayNameOf(participant);
    // Short visible words; the accessible name says whom (and starts with the visible words).
    const button = (label: string, accessibleName: string, run: () => void) => {
      const element = h("button", { type: "button", class: "button small", "aria-label": accessibleName }, label);
      element.addEventListener("click", run);
      return element;
    };
    const sharing = participant.isScreenShareEnabled;
    return h(
      "div",
      { class: "person-actions", role: "group", "aria-label": `Actions for ${name}` },
      participant.isMicrophoneEnabled ? button("Mute", `Mute ${name}`, () => void act(`Muted ${name}.`, api.mute(participant.identity, "microphone"))) : null,
      participant.isCameraEnabled
        ? button("Stop camera", `Stop camera of ${name}`, () => void act(`Stopped ${name}'s camera.`, api.mute(participant.identity, "camera")))
        : null,
      sharing
        ? button("Stop sharing", `Stop sharing of ${name}`, () => void act(`Stopped ${name}'s screen share.`, api.mute(participant.identity, "screen_share")))
        : null,
      button("Remove", `Remove ${name}`, () => void act(`Removed ${name}.`, api.remove(participant.identity))),
    );
  }

  function renderPeople() {
    if (disposed) return;
    const everyone: Participant[] = [room.localParticipant, ...room.remoteParticipants.values()];
    peopleHeading.textContent = `People (${everyone.length})`;
    rerender(
      people,
      everyone.map((participant) => {
        const local = participant === room.localParticipant;
        const microphone = participant.isMicrophoneEnabled ? "microphone on" : "microphone off";
        return h(
          "li",
          { class: "person", "data-identity": participant.identity },
          h(
            "p",
            { class: "person-line" },
            h("span", { class: "person-name" }, `${displayNameOf(participant)}${local ? " (you)" : ""}`),
            h("span", { class: `role role-${roleOf(participant)}` }, roleLabel[roleOf(participant)] ?? "Guest"),
            h("span", { class: `mic ${participant.isMicrophoneEnabled ? "mic-on" : "mic-off"}` }, microphone),
          ),
          isHost && !local ? hostActions(participant) : null,
        );
      }),
    );
  }

  let shownLobby = "";

  function renderLobby(lobby: LobbyList) {
    const fresh = lobby.waiting.filter((entry) => !knownWaiting.has(entry.entryId));
    if (fresh.length > 0) {
      knock();
      announce(`${fresh.map((entry) => entry.displayName).join(", ")} ${fresh.length === 1 ? "is" : "are"} waiting to join`);
    }
    knownWaiting = new Set(lobby.waiting.map((entry) => entry.entryId));
    lobbyBadge.hidden = lobby.waiting.length === 0;
    lobbyBadge.textContent = String(lobby.waiting.length);
    setAttributes(lobbyBadge, { "aria-label": `${lobby.waiting.length} waiting` });
    setAttributes(lockButton, { "aria-pressed": lobby.locked ? "true" : "false" });
    lockButton.textContent = lobby.locked ? "Unlock meeting" : "Lock meeting";
    // The same people waiting: leave the buttons as they are (a click in progress stays on its button).
    const shown = lobby.waiting.map((entry) => entry.entryId).join(",");
    if (shown === shownLobby && lobbyList.childElementCount > 0) return;
    shownLobby = shown;
    rerender(
      lobbyList,
      lobby.waiting.length === 0
        ? [h("li", { class: "empty" }, "Nobody is waiting.")]
        : lobby.waiting.map((entry) => {
            const admit = h("button", { type: "button", class: "button small primary", "aria-label": `Admit ${entry.displayName}` }, "Admit");
            const deny = h("button", { type: "button", class: "button small", "aria-label": `Deny ${entry.displayName}` }, "Deny");
            admit.addEventListener("click", () => void act(`Admitted ${entry.displayName}.`, api.decide(entry.entryId, true)).then(refreshLobby));
            deny.addEventListener("click", () => void act(`Denied ${entry.displayName}.`, api.decide(entry.entryId, false)).then(refreshLobby));
            return h("li", { class: "waiting" }, h("span", { class: "person-name" }, entry.displayName), admit, deny);
          }),
    );
  }

  async function refreshLobby() {
    if (!isHost || disposed) return;
    window.clearTimeout(lobbyTimer);
    const result = await api.lobby();
    if (result.ok && !disposed) renderLobby(result.body);
    if (!disposed) lobbyTimer = window.setTimeout(() => void refreshLobby(), LOBBY_POLL_MS);
  }

  const seen = new Set<string>();
  const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
  function addMessage(message: ChatMessage) {
    if (seen.has(message.id)) return;
    seen.add(message.id);
    const sentAt = new Date(message.sentAt);
    // Text nodes only: a link or markup in a message is shown as the text it is.
    log.append(
      h(
        "li",
        { class: "chat-message" },
        h(
          "p",
          { class: "chat-meta" },
          h("span", { class: "chat-name" }, message.displayName),
          " ",
          h("time", { datetime: message.sentAt }, timeFormat.format(sentAt)),
        ),
        h("p", { class: "chat-text" }, message.text),
      ),
    );
    log.scrollTop = log.scrollHeight;
  }

  const decoder = new TextDecoder();
  function onData(payload: Uint8Array, participant?: Participant, _kind?: unknown, topic?: string) {
    // Only the server's packets (no participant may send data: their grant has no canPublishData).
    if (participant) return;
    if (topic === TOPICS.chat) {
      try {
        addMessage(JSON.parse(decoder.decode(payload)) as ChatMessage);
      } catch {
        // not a message of ours
      }
    } else if (topic === TOPICS.lobby) void refreshLobby();
  }

  chatForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return say("Type a message first.");
    void api.send(text).then((result) => {
      if (result.ok) {
        input.value = "";
        addMessage(result.body);
        say("");
      } else say(result.error);
    });
  });
  input.addEventListener("keydown", (event) => {
    // Enter sends, Shift+Enter starts a new line (as in most chats).
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      chatForm.requestSubmit();
    }
  });
  lockButton.addEventListener("click", () => {
    const lock = lockButton.getAttribute("aria-pressed") !== "true";
    void act(lock ? "The meeting is locked: nobody new can enter." : "The meeting is unlocked.", api.lock(lock)).then(refreshLobby);
  });
  endButton.addEventListener("click", () => void act("Ending the meeting for everyone…", api.end()));

  const refreshEvents = [
    RoomEvent.ParticipantConnected,
    RoomEvent.ParticipantDisconnected,
    RoomEvent.TrackMuted,
    RoomEvent.TrackUnmuted,
    RoomEvent.TrackPublished,
    RoomEvent.TrackUnpublished,
    RoomEvent.LocalTrackPublished,
    RoomEvent.LocalTrackUnpublished,
    RoomEvent.ParticipantAttributesChanged,
  ] as const;
  for (const event of refreshEvents) room.on(event, renderPeople);
  room.on(RoomEvent.DataReceived, onData);
  renderPeople();
  void api.chat().then((result) => {
    if (result.ok) for (const message of result.body.messages) addMessage(message);
  });
  void refreshLobby();

  return {
    element,
    dispose() {
      disposed = true;
      window.clearTimeout(lobbyTimer);
      for (const event of refreshEvents) room.off(event, renderPeople);
      room.off(RoomEvent.DataReceived, onData);
    },
  };
}
