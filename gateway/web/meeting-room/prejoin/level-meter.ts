import { createAudioAnalyser, type LocalAudioTrack } from "livekit-client";
import { h } from "../../shared/dom.ts";

export interface LevelMeter {
  element: HTMLElement;
  /** Follows this microphone track's level (stops following the previous one). */
  follow(track: LocalAudioTrack): void;
  stop(): void;
}

/** A level bar under the preview, so people see their microphone picks them up. */
export function createLevelMeter(): LevelMeter {
  const level = h("span", { class: "level-bar" });
  const element = h("span", { class: "level", "aria-hidden": "true" }, level);
  let stopFollowing: (() => void) | undefined;

  const stop = () => stopFollowing?.();
  return {
    element,
    stop,
    follow(track) {
      stop();
      const { calculateVolume, analyser, cleanup } = createAudioAnalyser(track, { cloneTrack: true, smoothingTimeConstant: 0.6 });
      // The audio context may start suspended until the person interacts with the page.
      const resume = () => void (analyser.context as AudioContext).resume().catch(() => undefined);
      document.addEventListener("pointerdown", resume, { once: true });
      document.addEventListener("keydown", resume, { once: true });
      let frame = requestAnimationFrame(function tick() {
        level.style.transform = `scaleX(${Math.min(1, calculateVolume() * 4).toFixed(3)})`;
        frame = requestAnimationFrame(tick);
      });
      stopFollowing = () => {
        cancelAnimationFrame(frame);
        document.removeEventListener("pointerdown", resume);
        document.removeEventListener("keydown", resume);
        void cleanup();
        stopFollowing = undefined;
      };
    },
  };
}
