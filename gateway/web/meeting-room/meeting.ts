import type { LocalAudioTrack, LocalVideoTrack, Room } from "livekit-client";
import type { JoinGrant } from "./api.ts";

/** What the server-rendered page says about the meeting (the data-* attributes of <main>). */
export interface Meeting {
  id: string;
  title: string;
  status: string;
  /** The meeting has a lobby: a join waits for a host's admission (nothing is asked for ahead then). */
  lobby: boolean;
  /** A personal link's secret, from the URL's fragment (never sent to the server but in the join body). */
  link?: string;
}

/** A participant connected to the meeting's LiveKit room, handed from the pre-join to the room view. */
export interface JoinedSession {
  room: Room;
  grant: JoinGrant;
  displayName: string;
  /** The previewed camera and microphone that were on, to publish as they are (no second prompt). */
  tracks: (LocalAudioTrack | LocalVideoTrack)[];
}

/** How a visit that is not (or no longer) in the room ends. */
export type Outcome =
  | { kind: "left" }
  | { kind: "ended" }
  | { kind: "removed" }
  /** A host turned the lobby wait down. */
  | { kind: "denied" }
  | { kind: "disconnected"; detail: string }
  /** The meeting's LiveKit server is older than the room supports (prejoin/media-server-version.ts). */
  | { kind: "unsupported-media-server"; version: string }
  /** The join-grant API refused for good (404, 410): its own words. */
  | { kind: "refused"; status: number; message: string };

/** Moving between the page's states, one view at a time (like livekit-examples/meet's PageClientImpl). */
export interface Navigation {
  preJoin(): void;
  room(session: JoinedSession): void;
  outcome(outcome: Outcome): void;
  /** Updates the status badge under the title (scheduled → live → ended). */
  setStatus(status: string): void;
}

const STORAGE_KEY = "svc.meeting.displayName";

/** The name typed last time, so a rejoin or the next meeting needs no retyping. */
export const rememberedName = {
  get(): string {
    try {
      return localStorage.getItem(STORAGE_KEY) ?? "";
    } catch {
      return ""; // storage can be disabled; the name is a convenience only
    }
  },
  set(name: string) {
    try {
      localStorage.setItem(STORAGE_KEY, name);
    } catch {
      // as above
    }
  },
};
