import type { Pool } from "@svc/platform/db";
import type { RoomStore } from "../room-store.ts";
import { decideLobbyEntry, denyAllWaiting, waitingEntries } from "./lobby.ts";
import { getMeeting, setRoomLocked } from "./meetings.ts";
import { activeRecordingOf } from "./recordings.ts";
import { admissionBySession, admissionOf, markRemoved, setAdmissionRole } from "./room-admissions.ts";
import { chatMessagesOf, insertChatMessage } from "./room-chat.ts";

/** RoomStore on the service's Postgres schema. */
export function pgRoomStore(pool: Pool): RoomStore {
  return {
    meeting: (meetingId) => getMeeting(pool, meetingId),
    setLocked: (meetingId, locked) => setRoomLocked(pool, meetingId, locked),
    admissions: {
      bySession: (meetingId, sessionHash) => admissionBySession(pool, meetingId, sessionHash),
      of: (meetingId, participantId) => admissionOf(pool, meetingId, participantId),
      remove: (meetingId, participantId) => markRemoved(pool, meetingId, participantId),
      setRole: (meetingId, who, role) => setAdmissionRole(pool, meetingId, who, role),
    },
    lobby: {
      waiting: (meetingId) => waitingEntries(pool, meetingId),
      denyAll: (meetingId) => denyAllWaiting(pool, meetingId),
      decide: (meetingId, entryId, admit) => decideLobbyEntry(pool, meetingId, entryId, admit),
    },
    chat: {
      add: (message, cap) => insertChatMessage(pool, message, cap),
      of: (meetingId) => chatMessagesOf(pool, meetingId),
    },
    activeRecording: (meetingId) => activeRecordingOf(pool, meetingId),
  };
}
