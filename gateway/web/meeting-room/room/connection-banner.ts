import { RoomEvent, type ConnectionQuality, type Participant, type Room } from "livekit-client";
import { h } from "../../shared/dom.ts";
import { qualityWord } from "./connection-quality.ts";

/**
 * Tells the person when the media server measures their own connection as poor (or lost), with
 * what helps: turning off the camera leaves the bandwidth to the sound, which matters more in a
 * meeting. A polite status (announced once as it appears); gone once the connection recovers.
 */
export function createConnectionBanner(room: Room, turnOffCamera: () => void) {
  const text = h("span", {});
  const cameraOff = h("button", { type: "button", class: "button small", onclick: () => turnOffCamera() }, "Turn off camera");
  const element = h("div", { class: "quality-banner", role: "status", hidden: true }, text, cameraOff);

  function update() {
    const word = qualityWord(room.localParticipant.connectionQuality);
    const bad = word === "poor" || word === "lost";
    element.hidden = !bad;
    if (!bad) return;
    const camera = room.localParticipant.isCameraEnabled;
    // Lost: nothing of yours arrives, so "with gaps" would promise too much.
    text.textContent =
      word === "lost"
        ? "Your connection is lost for the moment: the others neither see nor hear you. Move closer to your Wi-Fi or close other downloads."
        : camera
          ? "Your connection is poor. Turn off your camera so that the others keep hearing you."
          : "Your connection is poor. Others may hear you with gaps; move closer to your Wi-Fi or close other downloads.";
    cameraOff.hidden = !camera;
  }
  const onQuality = (_quality: ConnectionQuality, participant: Participant) => {
    if (participant === room.localParticipant) update();
  };
  room.on(RoomEvent.ConnectionQualityChanged, onQuality);
  room.on(RoomEvent.LocalTrackPublished, update);
  room.on(RoomEvent.LocalTrackUnpublished, update);
  room.on(RoomEvent.TrackMuted, update);
  room.on(RoomEvent.TrackUnmuted, update);
  update();
  return {
    element,
    dispose() {
      room.off(RoomEvent.ConnectionQualityChanged, onQuality);
      room.off(RoomEvent.LocalTrackPublished, update);
      room.off(RoomEvent.LocalTrackUnpublished, update);
      room.off(RoomEvent.TrackMuted, update);
      room.off(RoomEvent.TrackUnmuted, update);
    },
  };
}
