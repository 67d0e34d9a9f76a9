/**
 * The meeting room's own API (/api/v1/meeting/{id}/room/...), called with the participant's room
 * session. The page decides nothing: a host action it offers is still judged by the server, and
 * its refusal (`error`) is what the page shows.
 */
export type RoomCall<T> = { ok: true; body: T } | { ok: false; status: number; error: string };

export interface ChatMessage {
  id: string;
  participantId: string;
  displayName: string;
  text: string;
  sentAt: string;
}

export interface LobbyList {
  locked: boolean;
  /** Longest waiting first; over 200, the longest waiting and the newest arrivals. */
  waiting: { entryId: string; displayName: string; waitingSince: string }[];
  waitingCount: number;
}

export type RoomRole = "host" | "attendee" | "guest";

export interface RoomRecordingState {
  recording: boolean;
  /** The recorder reports it is capturing; false while it starts. */
  capturing: boolean;
  /** Capturing, and the meeting is transcribed: each person's audio is recorded for the transcript. */
  transcribed: boolean;
  layout: "grid" | "audio" | null;
  mode: "off" | "manual" | "auto";
}

export function roomApi(meetingId: string, roomSession: string) {
  const base = `/api/v1/meeting/${encodeURIComponent(meetingId)}/room`;
  async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<RoomCall<T>> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { accept: "application/json", "x-room-session": roomSession, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: "omit",
        cache: "no-store",
      });
    } catch {
      return { ok: false, status: 0, error: "The server could not be reached." };
    }
    const answer = (await response.json().catch(() => ({}))) as T & { error?: string };
    if (response.ok) return { ok: true, body: answer };
    return { ok: false, status: response.status, error: typeof answer.error === "string" ? answer.error : "Something went wrong; try again." };
  }
  const participant = (id: string) => `/participants/${encodeURIComponent(id)}`;
  return {
    chat: () => call<{ messages: ChatMessage[] }>("GET", "/chat"),
    send: (text: string) => call<ChatMessage>("POST", "/chat", { text }),
    lobby: () => call<LobbyList>("GET", "/lobby"),
    decide: (entryId: string, admit: boolean) => call<{ status: string }>("POST", `/lobby/${encodeURIComponent(entryId)}`, { admit }),
    denyAll: () => call<{ denied: number }>("POST", "/lobby/deny-all"),
    self: () => call<{ participantId: string; role: RoomRole }>("GET", "/self"),
    lock: (locked: boolean) => call<{ locked: boolean }>("POST", "/lock", { locked }),
    mute: (participantId: string, source: "microphone" | "camera" | "screen_share") =>
      call<{ muted: boolean }>("POST", `${participant(participantId)}/mute`, { source }),
    remove: (participantId: string) => call<{ removed: boolean }>("POST", `${participant(participantId)}/remove`),
    end: () => call<{ ended: boolean }>("POST", "/end"),
    setHost: (participantId: string, host: boolean) => call<{ participantId: string; role: RoomRole }>("POST", `${participant(participantId)}/role`, { host }),
    /** The caller's own hand (`self`), or a host lowering someone's. */
    hand: (participantId: string | "self", raised: boolean) =>
      call<{ participantId: string; raised: boolean; raisedAt: string | null }>("POST", `${participant(participantId)}/hand`, { raised }),
    react: (emoji: string) => call<{ emoji: string }>("POST", "/reactions", { emoji }),
    spotlight: (participantId: string | null) => call<{ participantId: string | null }>("POST", "/spotlight", { participantId }),
    recording: () => call<RoomRecordingState>("GET", "/recording"),
    startRecording: (layout: "grid" | "audio") => call<{ recordingId: string }>("POST", "/recording", { layout }),
    stopRecording: () => call<{ recordingId: string }>("POST", "/recording/stop"),
  };
}

export type RoomApi = ReturnType<typeof roomApi>;
