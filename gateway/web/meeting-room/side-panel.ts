import { RoomEvent, type Participant, type Room } from "livekit-client";
import { h } from "../shared/dom.ts";
import type { JoinGrant } from "./api.ts";
import { roomApi, type ChatMessage } from "./room-api.ts";
import { createChat } from "./side-panel/chat.ts";
import { createLobbyQueue } from "./side-panel/lobby-queue.ts";
import { panelFeedback } from "./side-panel/panel-tools.ts";
import { createPeopleList } from "./side-panel/people-list.ts";
import { createRecordingControl } from "./side-panel/recording-control.ts";
import { createRecordingIndicator, type RecordingNotice } from "./room/recording-indicator.ts";
import type { ViewState } from "./room/stage-layout.ts";

/** Data-packet topics the server sends (services/meeting/src/room/room-actions.ts). */
const TOPICS = { chat: "svc.chat", lobby: "svc.lobby", recording: "svc.recording" } as const;

/**
 * The room's side panel: the lobby queue for hosts (side-panel/lobby-queue.ts), the people in the
 * room with host actions for hosts (side-panel/people-list.ts) and the chat (side-panel/chat.ts).
 * Every action is the room API's, which the server authorizes; the server's data packets (chat
 * messages, lobby knocks) are routed here.
 */
export function mountSidePanel(room: Room, grant: JoinGrant, announce: (text: string) => void, view: ViewState) {
  const api = roomApi(grant.meeting.id, grant.roomSession);
  const status = h("p", { class: "panel-feedback", role: "status" });
  const feedback = panelFeedback(status);
  const lobby = grant.role === "host" ? createLobbyQueue(api, feedback, announce) : null;
  // Everyone sees whether the meeting is recorded (the room view shows the indicator); hosts also get the control.
  const recording = createRecordingIndicator(room, api, announce);
  const recordingControl = grant.role === "host" ? createRecordingControl(api, recording, feedback) : null;
  const people = createPeopleList(room, api, grant.role === "host", feedback, view);
  const chat = createChat(api, feedback);
  const element = h(
    "aside",
    { class: "side-panel", "aria-label": "People and chat" },
    lobby?.element,
    recordingControl?.element,
    people.element,
    chat.element,
    status,
  );

  const decoder = new TextDecoder();
  function onData(payload: Uint8Array, participant?: Participant, _kind?: unknown, topic?: string) {
    // Only the server's packets (no participant may send data: their grant has no canPublishData).
    if (participant) return;
    if (topic === TOPICS.chat) {
      try {
        chat.add(JSON.parse(decoder.decode(payload)) as ChatMessage);
      } catch {
        // not a message of ours
      }
    } else if (topic === TOPICS.lobby) lobby?.refresh();
    else if (topic === TOPICS.recording) {
      try {
        recording.notify(JSON.parse(decoder.decode(payload)) as RecordingNotice);
      } catch {
        // not a notice of ours
      }
    }
  }
  room.on(RoomEvent.DataReceived, onData);

  return {
    element,
    /** The recording indicator and its announcement, which the room view places for everyone. */
    recording,
    dispose() {
      recording.dispose();
      lobby?.dispose();
      people.dispose();
      room.off(RoomEvent.DataReceived, onData);
    },
  };
}
