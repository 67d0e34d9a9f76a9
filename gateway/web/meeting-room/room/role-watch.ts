import { RoomEvent, type Participant, type Room } from "livekit-client";
import type { RoomApi, RoomRole } from "../room-api.ts";

/** The server's nudge to read one's role again (services/meeting/src/room/room-actions.ts ROOM_TOPICS.role). */
const ROLE_TOPIC = "svc.role";
/** How often a host's page checks its role without a nudge (a demotion shows within this, even if the packet is lost). */
const HOST_CHECK_MS = 3_000;

/**
 * Keeps the page's idea of the person's role in line with the server's, which reads it live
 * (a host dropped from `hosts` is an attendee at once; a revoked link stops acting): it asks
 * GET …/room/self when the server's `svc.role` packet arrives and, for a host, every few
 * seconds. `changed` gets the new role; `refused` the server's words when the session may no
 * longer act at all (the server also disconnects the person from the media room).
 */
export function watchRole(room: Room, api: RoomApi, initial: RoomRole, on: { changed: (role: RoomRole) => void; refused: (message: string) => void }) {
  let role = initial;
  let disposed = false;
  let timer: number | undefined;

  async function check() {
    window.clearTimeout(timer);
    const answer = await api.self();
    if (disposed) return;
    if (answer.ok && answer.body.role !== role) {
      role = answer.body.role;
      on.changed(role);
    } else if (!answer.ok && answer.status === 403) {
      return on.refused(answer.error);
    }
    if (role === "host") timer = window.setTimeout(() => void check(), HOST_CHECK_MS);
  }

  function onData(_payload: Uint8Array, participant?: Participant, _kind?: unknown, topic?: string) {
    if (!participant && topic === ROLE_TOPIC) void check();
  }
  room.on(RoomEvent.DataReceived, onData);
  if (role === "host") timer = window.setTimeout(() => void check(), HOST_CHECK_MS);

  return {
    dispose() {
      disposed = true;
      window.clearTimeout(timer);
      room.off(RoomEvent.DataReceived, onData);
    },
  };
}
