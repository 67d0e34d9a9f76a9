import { Router, type Request } from "express";
import type { z } from "zod";
import { RECORDING_START_TIMEOUT_MS, type Clients } from "../clients.ts";
import {
  ChatMessageRequest,
  HandRequest,
  LobbyDecisionRequest,
  MuteRequest,
  ParticipantRoleRequest,
  ReactionRequest,
  RoomLockRequest,
  SpotlightRequest,
  type HandState,
  type ParticipantRoleChange,
  type ChatMessage,
  type ChatMessages,
  type LobbyDenial,
  type LobbyList,
  type RoomSelf,
} from "../contract/meeting.ts";
import { StartRecordingRequest, type RoomRecordingState } from "../contract/recording.ts";
import { HttpError } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import { parseJsonBody } from "../http/parse-request.ts";
import { roleName } from "./enum-words.ts";
import { isoTime } from "./proto-to-json.ts";

/** The caller's room session (X-Room-Session), which the meeting service judges. */
function roomSession(req: Request): string {
  const value = req.get("x-room-session");
  if (!value) throw new HttpError(401, "X-Room-Session is required: join the meeting first");
  return value;
}

const chatJson = (message: { id: bigint; participantId: string; displayName: string; text: string; sentAt?: Parameters<typeof isoTime>[0] }) =>
  ({
    id: String(message.id),
    participantId: message.participantId,
    displayName: message.displayName,
    text: message.text,
    sentAt: isoTime(message.sentAt),
  }) satisfies z.input<typeof ChatMessage>;

/**
 * The meeting room's own API (/api/v1/meeting/:id/room/...), for the people in the room: the
 * lobby, host actions and chat. A participant authenticates with the room session of their join
 * grant; the meeting service decides what their role allows, so a page that shows a button is
 * never what permits the action.
 */
export function meetingRoomRoutes(clients: Clients): Router {
  const router = Router();
  const room = clients.meetingRoom;
  const ids = (req: Request) => ({ meetingId: String(req.params.id), roomSession: roomSession(req) });

  router.get("/meeting/:id/room/lobby", async (req, res) => {
    const lobby = await room.listLobby(ids(req));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof LobbyList> = {
      locked: lobby.locked,
      waiting: lobby.waiting.map((entry) => ({ entryId: entry.entryId, displayName: entry.displayName, waitingSince: isoTime(entry.waitingSince) })),
      waitingCount: lobby.waitingCount,
    };
    res.json(answer);
  });

  // Before /room/lobby/:entryId, which would take "deny-all" for an entry id.
  router.post("/meeting/:id/room/lobby/deny-all", async (req, res) => {
    const { denied } = await room.denyAllWaiting(ids(req));
    const answer: z.input<typeof LobbyDenial> = { denied };
    res.json(answer);
  });

  router.get("/meeting/:id/room/self", async (req, res) => {
    const self = await room.getSelf(ids(req));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof RoomSelf> = { participantId: self.participantId, role: roleName(self.role) };
    res.json(answer);
  });

  router.post("/meeting/:id/room/lobby/:entryId", ...jsonBody, async (req, res) => {
    const { admit } = parseJsonBody(LobbyDecisionRequest, req.body);
    const { status } = await room.decideLobbyEntry({ ...ids(req), entryId: String(req.params.entryId), admit });
    res.json({ entryId: String(req.params.entryId), status });
  });

  router.post("/meeting/:id/room/lock", ...jsonBody, async (req, res) => {
    const { locked } = parseJsonBody(RoomLockRequest, req.body);
    res.json(await room.setRoomLocked({ ...ids(req), locked }).then((answer) => ({ locked: answer.locked })));
  });

  router.post("/meeting/:id/room/participants/:participantId/mute", ...jsonBody, async (req, res) => {
    const { source } = parseJsonBody(MuteRequest, req.body);
    const { muted } = await room.muteParticipant({ ...ids(req), participantId: String(req.params.participantId), source });
    res.json({ participantId: String(req.params.participantId), source, muted });
  });

  router.post("/meeting/:id/room/participants/:participantId/remove", async (req, res) => {
    await room.removeParticipant({ ...ids(req), participantId: String(req.params.participantId) });
    res.json({ participantId: String(req.params.participantId), removed: true });
  });

  router.post("/meeting/:id/room/participants/:participantId/role", ...jsonBody, async (req, res) => {
    const { host } = parseJsonBody(ParticipantRoleRequest, req.body);
    const participantId = String(req.params.participantId);
    const { role } = await room.setParticipantRole({ ...ids(req), participantId, host });
    const answer: z.input<typeof ParticipantRoleChange> = { participantId, role: roleName(role) };
    res.json(answer);
  });

  // The caller's own hand ("self"), or, for a host lowering it, someone else's.
  router.post("/meeting/:id/room/participants/:participantId/hand", ...jsonBody, async (req, res) => {
    const { raised } = parseJsonBody(HandRequest, req.body);
    const participantId = String(req.params.participantId);
    const state = await room.setHandRaised({ ...ids(req), participantId: participantId === "self" ? "" : participantId, raised });
    const answer: z.input<typeof HandState> = {
      participantId: state.participantId,
      raised: state.raised,
      raisedAt: state.raisedAt ? isoTime(state.raisedAt) : null,
    };
    res.json(answer);
  });

  router.post("/meeting/:id/room/reactions", ...jsonBody, async (req, res) => {
    const { emoji } = parseJsonBody(ReactionRequest, req.body);
    await room.sendReaction({ ...ids(req), emoji });
    res.status(202).json({ emoji });
  });

  router.post("/meeting/:id/room/spotlight", ...jsonBody, async (req, res) => {
    const { participantId } = parseJsonBody(SpotlightRequest, req.body);
    await room.setSpotlight({ ...ids(req), participantId: participantId ?? "" });
    res.json({ participantId });
  });

  router.post("/meeting/:id/room/end", async (req, res) => {
    await room.endForEveryone(ids(req));
    res.json({ meetingId: req.params.id, ended: true });
  });

  router.get("/meeting/:id/room/recording", async (req, res) => {
    const state = await room.getRoomRecording(ids(req));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof RoomRecordingState> = {
      recording: state.recording,
      capturing: state.capturing,
      transcribed: state.transcribed,
      layout: state.layout === "grid" || state.layout === "audio" ? state.layout : null,
      mode: state.mode === "manual" || state.mode === "auto" ? state.mode : "off",
    };
    res.json(answer);
  });

  router.post("/meeting/:id/room/recording", ...jsonBody, async (req, res) => {
    const { layout } = parseJsonBody(StartRecordingRequest, req.body);
    const started = await room.startRoomRecording({ ...ids(req), layout: layout ?? "grid" }, { timeoutMs: RECORDING_START_TIMEOUT_MS });
    res.status(201).json({ recordingId: started.recordingId, layout: started.layout });
  });

  router.post("/meeting/:id/room/recording/stop", async (req, res) => {
    const { recordingId } = await room.stopRoomRecording(ids(req));
    res.json({ recordingId, stopped: true });
  });

  router.get("/meeting/:id/room/chat", async (req, res) => {
    const { messages } = await room.listChatMessages(ids(req));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof ChatMessages> = { messages: messages.map(chatJson) };
    res.json(answer);
  });

  router.post("/meeting/:id/room/chat", ...jsonBody, async (req, res) => {
    const { text } = parseJsonBody(ChatMessageRequest, req.body);
    const { message } = await room.sendChatMessage({ ...ids(req), text });
    res.status(201).json(chatJson(message!));
  });

  return router;
}
