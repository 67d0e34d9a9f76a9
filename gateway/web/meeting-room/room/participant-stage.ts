import { Track, type Participant } from "livekit-client";
import { h } from "../../shared/dom.ts";
import { ParticipantTile, ScreenTile, type Featured } from "../participant-tile.ts";

/** What the room view decided about the people beyond who is present (room/stage-layout.ts, room/hands.ts). */
export interface StageLayout {
  /** Who is shown large and why (speaker view, a pin, a spotlight); undefined for the grid. */
  featured?: { identity: string; why: Featured };
  /** Identities with a raised hand, first raised first. */
  hands: readonly string[];
}

/** Grid shapes by head count: 1, 2, 3-4 (2×2), 5-9 (3×3), more (4 columns, scrolling). */
export function gridSize(count: number): string {
  if (count <= 1) return "1";
  if (count === 2) return "2";
  if (count <= 4) return "4";
  if (count <= 9) return "9";
  return "many";
}

export interface ParticipantStage {
  element: HTMLElement;
  /** Brings tiles and shared screens in line with the people present; answers how many are. */
  sync(participants: Participant[], local: Participant, layout?: StageLayout): number;
  /** Floats a reaction over the person's tile; false when they have none (they left). */
  react(identity: string, emoji: string): boolean;
  destroy(): void;
}

/**
 * The stage: shared screens as large tiles beside a column of participant tiles; else, in the
 * speaker layout, one person large (featured) beside the others; else a grid of participant tiles
 * that adapts to the head count. A tile moves between the grid and the featured place within one
 * call, so its video keeps playing (a media element is paused only when it is still out of the
 * document after the task).
 */
export function createParticipantStage(): ParticipantStage {
  const tiles = new Map<string, ParticipantTile>();
  const screens = new Map<string, ScreenTile>();
  const grid = h("ul", { class: "grid", "aria-label": "Participants" });
  const featuredArea = h("ul", { class: "featured", "aria-label": "Shown large" });
  const screenArea = h("div", { class: "screens" }, featuredArea);
  const element = h("div", { class: "stage" }, screenArea, grid);

  /** Rows follow from the columns the style sheet chose for this size and screen width. */
  const setRows = () => {
    const columns = Number(getComputedStyle(grid).getPropertyValue("--cols")) || 1;
    grid.style.setProperty("--rows", String(Math.max(1, Math.ceil(grid.childElementCount / columns))));
  };
  const resizes = new ResizeObserver(setRows);
  resizes.observe(grid);

  function syncScreen(participant: Participant, isLocal: boolean) {
    let screen = screens.get(participant.identity);
    if (participant.getTrackPublication(Track.Source.ScreenShare) && !screen) {
      screen = new ScreenTile(participant, isLocal);
      screens.set(participant.identity, screen);
      screenArea.appendChild(screen.element);
    }
    if (screen && !screen.update()) {
      screen.destroy();
      screens.delete(participant.identity);
    }
  }

  function removeAbsent(present: ReadonlySet<string>) {
    for (const shown of [tiles, screens] as Map<string, { destroy(): void }>[]) {
      for (const [identity, each] of shown) {
        if (present.has(identity)) continue;
        each.destroy();
        shown.delete(identity);
      }
    }
  }

  return {
    element,
    sync(participants, local, layout = { hands: [] }) {
      const present = new Set<string>();
      for (const participant of participants) {
        present.add(participant.identity);
        let tile = tiles.get(participant.identity);
        if (!tile) {
          tile = new ParticipantTile(participant, participant === local);
          tiles.set(participant.identity, tile);
          grid.appendChild(tile.element);
        }
        syncScreen(participant, participant === local);
      }
      removeAbsent(present);
      // A shared screen takes the stage as before; else the featured person, if any.
      const featured = screens.size === 0 ? layout.featured : undefined;
      for (const [identity, tile] of tiles) {
        const place = layout.hands.indexOf(identity);
        tile.update({ handPlace: place < 0 ? undefined : place + 1, featured: identity === featured?.identity ? featured.why : undefined });
        const home = identity === featured?.identity ? featuredArea : grid;
        if (tile.element.parentElement !== home) home.appendChild(tile.element);
      }
      const inGrid = grid.childElementCount;
      grid.dataset.size = gridSize(inGrid);
      setRows();
      element.dataset.layout = screens.size > 0 ? "screen" : featured ? "speaker" : "grid";
      return tiles.size;
    },
    react(identity, emoji) {
      const tile = tiles.get(identity);
      tile?.react(emoji);
      return tile !== undefined;
    },
    destroy() {
      resizes.disconnect();
      for (const tile of tiles.values()) tile.destroy();
      for (const screen of screens.values()) screen.destroy();
    },
  };
}
