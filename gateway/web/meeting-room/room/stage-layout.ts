import type { Featured } from "../participant-tile.ts";

/** The person's own choice of view (remembered for the call only). */
export type ViewMode = "grid" | "speaker";

/** Everything the choice of the large tile depends on. */
export interface LayoutChoice {
  mode: ViewMode;
  /** Whom a host spotlit for everyone (the room's metadata), if anyone. */
  spotlight?: string;
  /** Whom this person pinned for themselves, if anyone. */
  pinned?: string;
  /** The remote person who spoke last (livekit-client's active speakers). */
  lastSpeaker?: string;
  /** Who is present, the local person first. */
  present: readonly string[];
}

/**
 * Who is shown large, and why: a host's spotlight first (it is for everyone), then one's own pin,
 * then, in speaker view, whoever spoke last (someone else before oneself, as in Meet); nobody in
 * the grid view. Someone who left is never chosen. A shared screen takes the stage before any of
 * these (participant-stage.ts).
 */
export function featuredPerson(choice: LayoutChoice): { identity: string; why: Featured } | undefined {
  const present = new Set(choice.present);
  if (choice.spotlight && present.has(choice.spotlight)) return { identity: choice.spotlight, why: "spotlight" };
  if (choice.pinned && present.has(choice.pinned)) return { identity: choice.pinned, why: "pinned" };
  if (choice.mode === "grid") return undefined;
  if (choice.lastSpeaker && present.has(choice.lastSpeaker)) return { identity: choice.lastSpeaker, why: "speaker" };
  const someone = choice.present[1] ?? choice.present[0];
  return someone === undefined ? undefined : { identity: someone, why: "speaker" };
}

/** The room's metadata as the meeting service writes it (room-actions.ts setSpotlight): `{"spotlight": participantId}`. */
export function spotlightOf(metadata: string | undefined): string | undefined {
  if (!metadata) return undefined;
  try {
    const value = (JSON.parse(metadata) as { spotlight?: unknown }).spotlight;
    return typeof value === "string" && value !== "" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This person's own view of the stage (grid or speaker view, whom they pinned), shared by the
 * controls that change it (the view button, the people list) and the stage that shows it. Kept for
 * the call only.
 */
export function createViewState() {
  let mode: ViewMode = "grid";
  let pinned: string | undefined;
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((listener) => listener());
  return {
    get mode() {
      return mode;
    },
    get pinned() {
      return pinned;
    },
    setMode(next: ViewMode) {
      mode = next;
      changed();
    },
    /** Pins `identity` (undefined: nobody). */
    setPinned(identity: string | undefined) {
      pinned = identity;
      changed();
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ViewState = ReturnType<typeof createViewState>;
