import { Track, type Participant, type TrackPublication, type VideoTrack } from "livekit-client";
import { h, icon, setAttributes } from "../shared/dom.ts";
import { iconPaths } from "./icons.ts";

/** Initials for the picture shown when the camera is off: "Ada Lovelace" → "AL". */
function initials(name: string): string {
  const words = name.trim().split(/\s+/u).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((word) => [...word][0]!.toLocaleUpperCase()).join("") || "?";
}

export const displayNameOf = (participant: Participant) => participant.name || participant.identity;

/** The video track of a publication when there is a picture to show (published, subscribed, not muted). */
function visibleVideo(publication: TrackPublication | undefined): VideoTrack | undefined {
  if (!publication || publication.isMuted || !publication.track) return undefined;
  return publication.track as VideoTrack;
}

/**
 * One person in the grid: camera picture (or initials), name, microphone state, and a highlight
 * while they speak. `data-participant-id` is the LiveKit identity, which is the participant id of
 * the join grant. State lives in data attributes, which the style sheet reads.
 */
export class ParticipantTile {
  readonly element: HTMLLIElement;
  private readonly figure: HTMLElement;
  private readonly video: HTMLVideoElement;
  private readonly avatar: HTMLElement;
  private readonly name: HTMLElement;
  private readonly microphone: HTMLElement;
  private attached: VideoTrack | undefined;
  private readonly participant: Participant;
  private readonly local: boolean;

  constructor(participant: Participant, local: boolean) {
    this.participant = participant;
    this.local = local;
    this.video = h("video", { playsinline: true, autoplay: true, muted: true, class: local ? "mirror" : null });
    // Audio plays through separate <audio> elements (room-view.ts); the tile's video is always silent.
    this.video.muted = true;
    this.avatar = h("span", { class: "avatar", "aria-hidden": "true" });
    this.name = h("span", { class: "tile-name" });
    this.microphone = h("span", { class: "tile-mic", role: "img" });
    this.figure = h("figure", { class: "tile-figure" }, this.video, this.avatar, h("figcaption", {}, this.microphone, this.name));
    this.element = h("li", { class: "tile", "data-participant-id": participant.identity, "data-local": local ? "true" : null }, this.figure);
    this.update();
  }

  update() {
    const name = displayNameOf(this.participant);
    const label = this.local ? `${name} (you)` : name;
    this.name.textContent = label;
    this.avatar.textContent = initials(name);
    const microphone = this.participant.getTrackPublication(Track.Source.Microphone);
    const muted = !microphone || microphone.isMuted;
    this.microphone.replaceChildren(icon(iconPaths("microphone", muted)));
    setAttributes(this.microphone, { "aria-label": muted ? "Microphone off" : "Microphone on" });
    const camera = visibleVideo(this.participant.getTrackPublication(Track.Source.Camera));
    this.show(camera);
    setAttributes(this.figure, { "aria-label": label });
    setAttributes(this.element, {
      "data-camera": camera ? "on" : "off",
      "data-muted": muted ? "true" : "false",
      "data-speaking": this.participant.isSpeaking && !muted ? "true" : "false",
    });
  }

  private show(track: VideoTrack | undefined) {
    if (track === this.attached) return;
    this.attached?.detach(this.video);
    this.attached = track;
    track?.attach(this.video);
  }

  destroy() {
    this.show(undefined);
    this.element.remove();
  }
}

/** Someone's shared screen: its own large tile, picture kept whole (letterboxed, never cropped). */
export class ScreenTile {
  readonly element: HTMLElement;
  private readonly video: HTMLVideoElement;
  private attached: VideoTrack | undefined;

  readonly participant: Participant;

  constructor(participant: Participant, local: boolean) {
    this.participant = participant;
    this.video = h("video", { playsinline: true, autoplay: true, muted: true });
    this.video.muted = true;
    const owner = local ? "Your screen" : `${displayNameOf(participant)}'s screen`;
    this.element = h(
      "figure",
      { class: "tile tile-screen", "data-participant-id": participant.identity, "data-source": "screen_share", "aria-label": owner },
      this.video,
      h("figcaption", {}, h("span", { class: "tile-name" }, owner)),
    );
    this.update();
  }

  /** False once there is no screen to show. */
  update(): boolean {
    const track = visibleVideo(this.participant.getTrackPublication(Track.Source.ScreenShare));
    if (track !== this.attached) {
      this.attached?.detach(this.video);
      this.attached = track;
      track?.attach(this.video);
    }
    return track !== undefined;
  }

  destroy() {
    this.attached?.detach(this.video);
    this.attached = undefined;
    this.element.remove();
  }
}
