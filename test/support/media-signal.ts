import { SignalRequest, SignalResponse, UpdateParticipantMetadata, type RequestResponse_Reason } from "@livekit/protocol";

/** A signalling connection to the media server, as a LiveKit client opens it before any media. */
export interface SignalConnection {
  /** `joined`: the media server placed the participant in the room; `refused`: it would not. */
  outcome: "joined" | "refused";
  /** The room's name and participant count (joined), or why it refused when the server said. */
  detail: string;
  close(): void;
}

/**
 * Connects to LiveKit's signalling WebSocket with a join token, the way livekit-client does
 * (`/rtc?access_token=…`), and waits for the first answer: a JoinResponse (the participant is in
 * the room and counts against its cap until the socket closes) or a refusal (an HTTP error on the
 * upgrade, such as 404 for a room that does not exist, or a LeaveRequest). No media is set up.
 */
export function connectSignal(serverUrl: string, token: string): Promise<SignalConnection> {
  const url = `${serverUrl}/rtc?${new URLSearchParams({ access_token: token, protocol: "17", sdk: "js", version: "2.23.0", auto_subscribe: "1" })}`;
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const close = () => socket.close();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      close();
      resolve({ outcome: "refused", detail: "no answer within 10 s", close });
    }, 10_000);
    const settle = (connection: Omit<SignalConnection, "close">) => {
      clearTimeout(timer);
      resolve({ ...connection, close });
    };
    socket.addEventListener("message", (event) => {
      const message = SignalResponse.fromBinary(new Uint8Array(event.data as ArrayBuffer)).message;
      if (message.case === "join") settle({ outcome: "joined", detail: `${message.value.room?.name} with ${message.value.otherParticipants.length} others` });
      else if (message.case === "leave") settle({ outcome: "refused", detail: `leave: reason ${message.value.reason}` });
    });
    socket.addEventListener("error", () => settle({ outcome: "refused", detail: "the upgrade was refused" }));
    socket.addEventListener("close", (event) => settle({ outcome: "refused", detail: `closed (${event.code})` }));
  });
}

/** Why the media server would refuse this token, from its validation endpoint (what livekit-client asks after a failed connect). */
export async function validateSignal(serverUrl: string, token: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${serverUrl.replace(/^ws/, "http")}/rtc/validate?access_token=${encodeURIComponent(token)}`);
  return { status: response.status, body: (await response.text()).trim() };
}

/**
 * Joins with a token and asks the media server itself to set the participant's own attributes,
 * as a tampered page would (livekit-client's setAttributes sends this request): LiveKit's answer
 * to that request (RequestResponse reason), or "no answer" within 15 s. `close` leaves the room.
 */
export async function forgeOwnAttributes(
  serverUrl: string,
  token: string,
  attributes: Record<string, string>,
): Promise<{ reason: RequestResponse_Reason | "no answer"; close: () => void }> {
  const url = `${serverUrl}/rtc?${new URLSearchParams({ access_token: token, protocol: "17", sdk: "js", version: "2.23.0", auto_subscribe: "0" })}`;
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const requestId = 7;
  const reason = await new Promise<RequestResponse_Reason | "no answer">((resolve) => {
    const timer = setTimeout(() => resolve("no answer"), 15_000);
    socket.addEventListener("message", (event) => {
      const message = SignalResponse.fromBinary(new Uint8Array(event.data as ArrayBuffer)).message;
      if (message.case === "join") {
        const update = new UpdateParticipantMetadata({ attributes, requestId });
        socket.send(new SignalRequest({ message: { case: "updateMetadata", value: update } }).toBinary());
      } else if (message.case === "requestResponse" && message.value.requestId === requestId) {
        clearTimeout(timer);
        resolve(message.value.reason);
      }
    });
  });
  return { reason, close: () => socket.close() };
}
