import { Room } from "livekit-client";
import { requestJoinGrant, type JoinResult } from "../api.ts";
import type { Meeting } from "../meeting.ts";

/**
 * While the person lingers, a prepared grant is asked for again when this share of its life has
 * passed (the token's life is JOIN_TOKEN_TTL_SECONDS, 5 minutes by default), and at Join it is
 * used only while more than `USABLE_SHARE` of it is left: time enough to connect.
 */
const REFRESH_AT_SHARE = 2 / 3;
const USABLE_SHARE = 1 / 4;

/** What the pre-join has ready for a Join: the grant asked for `name`, while the person looks at their camera. */
interface Prepared {
  name: string;
  result: Promise<JoinResult>;
  /** When the grant stops being usable for a join (set when it arrives). */
  usableUntil?: number;
}

export interface PreparedJoin {
  /**
   * The name is known (at page open, from a typing pause or the personal link): ask for the grant
   * now and warm the connection to the media server, so Join only has to connect. Nothing when a
   * grant for this name is already asked for, or when asking now would put the person in a lobby.
   */
  prepare(name: string): void;
  /** At Join: the grant asked for ahead for this `name` while it is fresh, else a new request. Each grant is used once. */
  take(name: string): Promise<JoinResult>;
  dispose(): void;
}

/**
 * Joining in a second (docs/meeting-room.md, "Joining fast"): the join grant is asked for as soon
 * as the person's name is known, and LiveKit's `prepareConnection` resolves and connects to the
 * media server meanwhile, so pressing Join costs only the room connection. A refusal met ahead is
 * not shown: the Join asks again and shows the answer then, as without preparing. A grant is
 * refreshed shortly before it expires while the person stays on the pre-join. `mayPrepare` says
 * whether asking ahead is harmless: not while a lobby would seat the person before they press Join.
 */
export function createPreparedJoin(meeting: Meeting, mayPrepare: () => boolean): PreparedJoin {
  let prepared: Prepared | undefined;
  let refreshTimer: number | undefined;
  let disposed = false;

  function ask(name: string): Prepared {
    window.clearTimeout(refreshTimer);
    const entry: Prepared = { name, result: requestJoinGrant(meeting.id, name, meeting.link) };
    prepared = entry;
    void entry.result.then((result) => {
      if (!result.ok || !("grant" in result)) return;
      const life = Math.max(new Date(result.grant.expiresAt).getTime() - Date.now(), 0);
      entry.usableUntil = Date.now() + life * (1 - USABLE_SHARE);
      if (disposed || prepared !== entry) return; // taken by a Join meanwhile, or replaced
      // DNS, TCP and TLS to the media server now, not after Join (a HEAD request; any Room will do).
      void new Room().prepareConnection(result.grant.serverUrl, result.grant.token);
      refreshTimer = window.setTimeout(() => {
        if (!disposed && prepared === entry) ask(name);
      }, life * REFRESH_AT_SHARE);
    });
    return entry;
  }

  const usable = (entry: Prepared, result: JoinResult) => result.ok && ("lobbyTicket" in result || Date.now() < (entry.usableUntil ?? 0));

  return {
    prepare(name) {
      if (disposed || prepared?.name === name || !mayPrepare()) return;
      ask(name);
    },
    async take(name) {
      const entry = prepared?.name === name ? prepared : undefined;
      prepared = undefined;
      window.clearTimeout(refreshTimer);
      if (entry) {
        const result = await entry.result;
        if (usable(entry, result)) return result;
      }
      return requestJoinGrant(meeting.id, name, meeting.link);
    },
    dispose() {
      disposed = true;
      window.clearTimeout(refreshTimer);
    },
  };
}
