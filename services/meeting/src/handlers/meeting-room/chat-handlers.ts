import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument } from "@svc/platform";
import { meetingLimits, FORMAT_CHARACTER } from "@svc/platform/contract";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { isClosed } from "../../db/meetings.ts";
import { closedMeeting } from "../../room/join-grants.ts";
import { spend } from "../../room/rate-budget.ts";
import { ROOM_TOPICS } from "../../room/room-actions.ts";
import type { ChatMessageRecord } from "../../room-store.ts";
import type { MeetingRoomServiceDependencies, RoomAccess } from "./room-context.ts";

const MAX_CHAT_LENGTH = meetingLimits.chatMessageMaxLength;
const REACTIONS: readonly string[] = meetingLimits.reactions;

type ChatHandlers = Pick<ServiceImpl<typeof MeetingRoomService>, "sendChatMessage" | "listChatMessages" | "sendReaction">;

const chatMessage = (message: ChatMessageRecord) => ({
  id: BigInt(message.id),
  participantId: message.participantId,
  displayName: message.displayName,
  text: message.text,
  sentAt: timestampFromDate(message.sentAt),
});

/** What people in the room say to everyone: chat messages (stored, within the meeting's cap) and reactions (not stored), each within the sender's own budget. */
export function chatHandlers(deps: MeetingRoomServiceDependencies, { participant }: RoomAccess): ChatHandlers {
  const { room, actions } = deps;
  return {
    async sendChatMessage(request) {
      const sender = await participant(request.meetingId, request.roomSession);
      await spend(deps.chatLimiter, sender.participantId, "You are sending messages too fast; wait a moment");
      const text = request.text.trim();
      if (text.length === 0) throw invalidArgument(["text is required"]);
      if ([...text].length > MAX_CHAT_LENGTH) throw invalidArgument([`text must be at most ${MAX_CHAT_LENGTH} characters`]);
      if (/[\p{Cc}]/u.test(text.replace(/[\n\t]/g, "")) || FORMAT_CHARACTER.test(text.replace(/\u200d/g, "")))
        throw invalidArgument(["text must not contain control or invisible formatting characters"]);
      const stored = await room.chat.add(
        {
          meetingId: request.meetingId,
          participantId: sender.participantId,
          displayName: sender.displayName,
          text,
        },
        deps.chatMessagesPerMeeting,
      );
      if (!stored) {
        const meeting = await room.meeting(request.meetingId);
        if (!meeting || isClosed(meeting.status)) throw closedMeeting(meeting?.status ?? "ended");
        throw new ConnectError(`This meeting's chat is full (${deps.chatMessagesPerMeeting} messages)`, Code.ResourceExhausted);
      }
      const message = chatMessage(stored);
      await actions.broadcast(request.meetingId, ROOM_TOPICS.chat, {
        id: stored.id,
        participantId: stored.participantId,
        displayName: stored.displayName,
        text: stored.text,
        sentAt: stored.sentAt.toISOString(),
      });
      return { message };
    },

    async listChatMessages(request) {
      await participant(request.meetingId, request.roomSession);
      return {
        messages: (await room.chat.of(request.meetingId)).map(chatMessage),
      };
    },

    async sendReaction(request) {
      const sender = await participant(request.meetingId, request.roomSession);
      if (!REACTIONS.includes(request.emoji)) throw invalidArgument([`emoji must be one of ${REACTIONS.join(" ")}`]);
      await spend(deps.reactionLimiter, sender.participantId, "You are reacting too often; wait a moment");
      await actions.broadcast(request.meetingId, ROOM_TOPICS.reaction, {
        participantId: sender.participantId,
        emoji: request.emoji,
      });
      return { emoji: request.emoji };
    },
  };
}
