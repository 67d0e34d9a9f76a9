import { Track, type Participant, type TrackPublication, type VideoTrack } from "livekit-client";
import { h, icon, setAttributes } from "../shared/dom.ts";
import { iconPaths } from "./icons.ts";
import { qualityLabel, qualityWord } from "./room/connection-quality.ts";
import { ordinal } from "./room/hands.ts";

/** How long a reaction floats over the sender's tile (the style sheet's animation lasts as long). */
const REACTION_MS = 4_000;

/** Why a tile is shown large in the speaker layout, as its caption says. */
export type Featured = "spotlight" | "pinned" | "speaker";
const featuredWords: Record<Featured, string | null> = { spotlight: "Spotlight", pinned: "Pinned", speaker: null };

/** What the stage knows about a person beyond their own participant: their place among raised hands, why they are large. */
export interface TileContext {
  /** 1 for the first hand raised; undefined when their hand is down. */
  handPlace?: number;
  featured?: Featured;
}

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
  private readonly hand: HTMLElement;
  private readonly quality: HTMLElement;
  private readonly badge: HTMLElement;
  private readonly reactions: HTMLElement;
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
    this.hand = h("span", { class: "tile-hand", role: "img", hidden: true }, icon(iconPaths("hand")), h("span", { class: "tile-hand-place" }));
    this.quality = h("span", { class: "tile-quality", role: "img", hidden: true }, icon(iconPaths("signal")));
    this.badge = h("span", { class: "tile-badge", hidden: true });
    // Floating reactions are decoration: the room view announces each one in its live region.
    this.reactions = h("span", { class: "tile-reactions", "aria-hidden": "true" });
    this.figure = h(
      "figure",
      { class: "tile-figure" },
      this.video,
      this.avatar,
      h("span", { class: "tile-status" }, this.hand, this.badge, this.quality),
      this.reactions,
      h("figcaption", {}, this.microphone, this.name),
    );
    this.element = h("li", { class: "tile", "data-participant-id": participant.identity, "data-local": local ? "true" : null }, this.figure);
    this.update();
  }

  update(context: TileContext = {}) {
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
    this.hand.hidden = context.handPlace === undefined;
    this.hand.querySelector(".tile-hand-place")!.textContent = context.handPlace === undefined ? "" : String(context.handPlace);
    setAttributes(this.hand, { "aria-label": context.handPlace === undefined ? null : `Hand raised, ${ordinal(context.handPlace)}` });
    const badge = context.featured ? featuredWords[context.featured] : null;
    this.badge.hidden = badge === null;
    this.badge.textContent = badge ?? "";
    const quality = qualityWord(this.participant.connectionQuality);
    this.quality.hidden = quality === undefined;
    setAttributes(this.quality, { "aria-label": quality ? qualityLabel[quality] : null, title: quality ? qualityLabel[quality] : null });
    setAttributes(this.element, {
      "data-hand": context.handPlace === undefined ? null : "raised",
      "data-quality": quality ?? null,
      "data-featured": context.featured ?? null,
      "data-camera": camera ? "on" : "off",
      "data-muted": muted ? "true" : "false",
      "data-speaking": this.participant.isSpeaking && !muted ? "true" : "false",
    });
  }

  /** Floats `emoji` over the tile for a few seconds. */
  react(emoji: string) {
    const reaction = h("span", { class: "tile-reaction" }, emoji);
    this.reactions.appendChild(reaction);
    window.setTimeout(() => reaction.remove(), REACTION_MS);
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
