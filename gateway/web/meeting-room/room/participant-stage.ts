import { Track, type Participant } from "livekit-client";
import { h } from "../../shared/dom.ts";
import { ParticipantTile, ScreenTile } from "../participant-tile.ts";

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
  sync(participants: Participant[], local: Participant): number;
  destroy(): void;
}

/** The stage: shared screens as large tiles above a grid of participant tiles that adapts to the head count. */
export function createParticipantStage(): ParticipantStage {
  const tiles = new Map<string, ParticipantTile>();
  const screens = new Map<string, ScreenTile>();
  const grid = h("ul", { class: "grid", "aria-label": "Participants" });
  const screenArea = h("div", { class: "screens" });
  const element = h("div", { class: "stage" }, screenArea, grid);

  /** Rows follow from the columns the style sheet chose for this size and screen width. */
  const setRows = () => {
    const columns = Number(getComputedStyle(grid).getPropertyValue("--cols")) || 1;
    grid.style.setProperty("--rows", String(Math.max(1, Math.ceil(tiles.size / columns))));
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
    sync(participants, local) {
      const present = new Set<string>();
      for (const participant of participants) {
        present.add(participant.identity);
        let tile = tiles.get(participant.identity);
        if (!tile) {
          tile = new ParticipantTile(participant, participant === local);
          tiles.set(participant.identity, tile);
          grid.appendChild(tile.element);
        }
        tile.update();
        syncScreen(participant, participant === local);
      }
      removeAbsent(present);
      grid.dataset.size = gridSize(tiles.size);
      setRows();
      element.dataset.layout = screens.size > 0 ? "screen" : "grid";
      return tiles.size;
    },
    destroy() {
      resizes.disconnect();
      for (const tile of tiles.values()) tile.destroy();
      for (const screen of screens.values()) screen.destroy();
    },
  };
}
