import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "@svc/platform";
import { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { StoredMeeting } from "../meeting-store.ts";
import { newMeetingId } from "../meeting-id.ts";
import type { Admission, ChatMessageRecord, RoomStore } from "../room-store.ts";
import { ROOM_TOPICS, type RoomActions } from "../room/room-actions.ts";
import { hashRoomSecret, newRoomSecret } from "../room/room-secrets.ts";
import { meetingRoomService, type MeetingRoomServiceDependencies } from "./meeting-room-service.ts";

// The rules of the meeting room's handler over an in-memory transport and an in-memory room
// store: who a room session is, what a role permits, removal, the session's expiry and the chat's
// rules. The Postgres store, the media server and the lobby's own rules are covered by the
// integration tests (test/meeting-room/hosts-lobby-api.test.ts, room-*.test.ts).

const SESSION_IDLE_SECONDS = 60;
const CHAT_CAP = 2;

/** Only the members a rule uses; touching another fails the test. */
const only = <T extends object>(name: string, members: Partial<T>): T =>
  new Proxy(members as T, {
    get: (target, member) => {
      if (member in target) return target[member as keyof T];
      if (member === "then") return undefined;
      throw new Error(`${name}.${String(member)} is not used by these rules`);
    },
  });

function meetingNamed(title: string): StoredMeeting {
  return {
    id: newMeetingId(),
    orgId: "org",
    createdByUserId: "user",
    createdByClientId: null,
    title,
    start: null,
    end: null,
    attendees: ["ada@example.com"],
    hosts: ["grace@example.com"],
    settings: { lobby: false, screenShare: "everyone", noShowAfterMinutes: 10, recording: "off", transcription: "off" },
    status: "live",
    roomLocked: false,
    createdAt: new Date(),
    endedAt: null,
    cancelledAt: null,
    roomOpenedAt: new Date(),
  };
}

/** One meeting, its admissions by session hash and its chat, in memory. */
function inMemoryRoom(meeting: StoredMeeting) {
  const admissions = new Map<string, Admission & { lastActiveAt: Date }>();
  const chat: ChatMessageRecord[] = [];
  const ours = (meetingId: string) => meetingId === meeting.id;
  const store = only<RoomStore>("room store", {
    meeting: async (meetingId) => (ours(meetingId) ? meeting : undefined),
    async setLocked(meetingId, locked) {
      if (!ours(meetingId) || meeting.status === "ended" || meeting.status === "cancelled") return false;
      meeting.roomLocked = locked;
      return true;
    },
    admissions: only<RoomStore["admissions"]>("admissions", {
      bySession: async (meetingId, sessionHash) => (ours(meetingId) ? admissions.get(sessionHash.toString("hex")) : undefined),
      of: async (meetingId, participantId) => [...admissions.values()].find((admission) => ours(meetingId) && admission.participantId === participantId),
      async remove(meetingId, participantId) {
        const target = [...admissions.values()].find((admission) => ours(meetingId) && admission.participantId === participantId);
        if (!target) return [];
        target.removedAt = new Date();
        return [participantId];
      },
    }),
    chat: only<RoomStore["chat"]>("chat", {
      async add(message, cap) {
        if (!ours(message.meetingId) || meeting.status === "ended" || chat.length >= cap) return undefined;
        const stored = {
          id: String(chat.length + 1),
          participantId: message.participantId,
          displayName: message.displayName,
          text: message.text,
          sentAt: new Date(),
        };
        chat.push(stored);
        return stored;
      },
      of: async (meetingId) => (ours(meetingId) ? chat : []),
    }),
  });
  /** Admits someone and answers their room session (a secret, as a join grant hands it out). */
  const admit = (displayName: string, role: Admission["role"], lastActiveAt = new Date()) => {
    const session = newRoomSecret();
    const participantId = `p-${admissions.size + 1}`;
    admissions.set(hashRoomSecret(session).toString("hex"), {
      participantId,
      meetingId: meeting.id,
      role,
      email: null,
      linkId: null,
      displayName,
      removedAt: null,
      admittedFromLobby: false,
      lastActiveAt,
    });
    return { session, participantId };
  };
  return { store, chat, admit };
}

function setUp() {
  const meeting = meetingNamed("Standup");
  const room = inMemoryRoom(meeting);
  const broadcasts: { meetingId: string; topic: string; payload: unknown }[] = [];
  const removedFromMedia: string[] = [];
  const deps: MeetingRoomServiceDependencies = {
    room: room.store,
    grants: only("grants", {}),
    lifecycle: only("lifecycle", {}),
    actions: only<RoomActions>("actions", {
      async broadcast(meetingId, topic, payload) {
        broadcasts.push({ meetingId, topic, payload });
      },
      async remove(_meetingId, participantId) {
        removedFromMedia.push(participantId);
      },
    }),
    closeRoom: () => {
      throw new Error("closeRoom is not used by these rules");
    },
    recordings: only("recordings", {}),
    links: only("links", {}),
    chatLimiter: createRateLimiter({ name: "room-chat-test", points: 100, durationSeconds: 60, keyPrefix: "test:" }),
    reactionLimiter: createRateLimiter({ name: "room-reaction-test", points: 100, durationSeconds: 60, keyPrefix: "test:" }),
    rightsChanged: () => {},
    chatMessagesPerMeeting: CHAT_CAP,
    sessionIdleSeconds: SESSION_IDLE_SECONDS,
  };
  const client = createClient(
    MeetingRoomService,
    createRouterTransport((router) => router.service(MeetingRoomService, meetingRoomService(deps))),
  );
  return { meeting, room, client, broadcasts, removedFromMedia };
}

const refusal = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => ConnectError.from(error),
  );

describe("MeetingRoomService, the room session", () => {
  it("is refused as UNAUTHENTICATED when it is not a session of this meeting, or not a session at all", async () => {
    const { meeting, client } = setUp();
    for (const roomSession of [newRoomSecret(), "not-a-secret"]) {
      const error = await refusal(client.getSelf({ meetingId: meeting.id, roomSession }));
      expect(error?.code).toBe(Code.Unauthenticated);
    }
  });

  it("names its participant and role", async () => {
    const { meeting, room, client } = setUp();
    const ada = room.admit("Ada", "attendee");
    const self = await client.getSelf({ meetingId: meeting.id, roomSession: ada.session });
    expect(self.participantId).toBe(ada.participantId);
  });

  it("expires once its person has been away longer than the join token lives", async () => {
    const { meeting, room, client } = setUp();
    const away = room.admit("Ada", "attendee", new Date(Date.now() - (SESSION_IDLE_SECONDS + 5) * 1_000));
    const error = await refusal(client.getSelf({ meetingId: meeting.id, roomSession: away.session }));
    expect(error?.code).toBe(Code.Unauthenticated);
    expect(error?.rawMessage).toMatch(/expired/);
  });

  it("of someone a host removed is refused (x-room-state: removed), and they are taken out of the media room", async () => {
    const { meeting, room, client, removedFromMedia } = setUp();
    const host = room.admit("Grace", "host");
    const ada = room.admit("Ada", "attendee");
    await client.removeParticipant({ meetingId: meeting.id, roomSession: host.session, participantId: ada.participantId });
    expect(removedFromMedia).toEqual([ada.participantId]);
    const error = await refusal(client.getSelf({ meetingId: meeting.id, roomSession: ada.session }));
    expect(error?.code).toBe(Code.PermissionDenied);
    expect(error?.metadata.get("x-room-state")).toBe("removed");
  });

  it("of an ended meeting acts no more", async () => {
    const { meeting, room, client } = setUp();
    const ada = room.admit("Ada", "attendee");
    meeting.status = "ended";
    const error = await refusal(client.listChatMessages({ meetingId: meeting.id, roomSession: ada.session }));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error?.rawMessage).toBe("This meeting has ended");
  });
});

describe("MeetingRoomService, what a role permits", () => {
  it("lets a host lock the room, and refuses an attendee (PERMISSION_DENIED) without locking it", async () => {
    const { meeting, room, client } = setUp();
    const host = room.admit("Grace", "host");
    const ada = room.admit("Ada", "attendee");
    expect((await refusal(client.setRoomLocked({ meetingId: meeting.id, roomSession: ada.session, locked: true })))?.code).toBe(Code.PermissionDenied);
    expect(meeting.roomLocked).toBe(false);
    expect((await client.setRoomLocked({ meetingId: meeting.id, roomSession: host.session, locked: true })).locked).toBe(true);
    expect(meeting.roomLocked).toBe(true);
  });

  it("does not let a host remove themselves", async () => {
    const { meeting, room, client } = setUp();
    const host = room.admit("Grace", "host");
    const error = await refusal(client.removeParticipant({ meetingId: meeting.id, roomSession: host.session, participantId: host.participantId }));
    expect(error?.code).toBe(Code.InvalidArgument);
  });
});

describe("MeetingRoomService, the chat", () => {
  it("stores a message under its sender's name and tells the room", async () => {
    const { meeting, room, client, broadcasts } = setUp();
    const ada = room.admit("Ada", "attendee");
    const { message } = await client.sendChatMessage({ meetingId: meeting.id, roomSession: ada.session, text: "  hello  " });
    expect(message).toMatchObject({ participantId: ada.participantId, displayName: "Ada", text: "hello" });
    expect(broadcasts).toEqual([{ meetingId: meeting.id, topic: ROOM_TOPICS.chat, payload: expect.objectContaining({ text: "hello", displayName: "Ada" }) }]);
    expect((await client.listChatMessages({ meetingId: meeting.id, roomSession: ada.session })).messages.map((listed) => listed.text)).toEqual(["hello"]);
  });

  it("refuses an empty message and one with control or invisible formatting characters, storing nothing", async () => {
    const { meeting, room, client } = setUp();
    const ada = room.admit("Ada", "attendee");
    for (const text of ["   ", "bell\u0007", "hidden\u2066text"]) {
      expect((await refusal(client.sendChatMessage({ meetingId: meeting.id, roomSession: ada.session, text })))?.code).toBe(Code.InvalidArgument);
    }
    expect(room.chat).toEqual([]);
  });

  it("refuses a message once the meeting's chat holds its cap (RESOURCE_EXHAUSTED)", async () => {
    const { meeting, room, client } = setUp();
    const ada = room.admit("Ada", "attendee");
    for (let index = 0; index < CHAT_CAP; index++) await client.sendChatMessage({ meetingId: meeting.id, roomSession: ada.session, text: `message ${index}` });
    const error = await refusal(client.sendChatMessage({ meetingId: meeting.id, roomSession: ada.session, text: "one too many" }));
    expect(error?.code).toBe(Code.ResourceExhausted);
    expect(room.chat).toHaveLength(CHAT_CAP);
  });
});
