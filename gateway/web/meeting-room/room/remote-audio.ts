import type { RemoteTrack } from "livekit-client";
import { h } from "../../shared/dom.ts";

export interface RemoteAudio {
  /** A hidden holder of the audio elements. */
  element: HTMLElement;
  play(track: RemoteTrack): void;
  stop(track: RemoteTrack): void;
  destroy(): void;
}

/** Plays the other people's audio tracks through elements of their own. */
export function createRemoteAudio(): RemoteAudio {
  const playing = new Map<RemoteTrack, HTMLMediaElement>();
  const element = h("div", { class: "audio-sink", hidden: true });
  const stop = (track: RemoteTrack) => {
    const media = playing.get(track);
    if (!media) return;
    track.detach(media);
    media.remove();
    playing.delete(track);
  };
  return {
    element,
    play(track) {
      const media = track.attach();
      playing.set(track, media);
      element.appendChild(media);
    },
    stop,
    destroy() {
      for (const track of [...playing.keys()]) stop(track);
    },
  };
}
