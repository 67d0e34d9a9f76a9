// The floor of the join phases (test/bench/join-phases.ts): a bare page with livekit-client alone,
// the same room options as the meeting room's (gateway/web/meeting-room/prejoin-view.ts
// createRoom) and nothing else: no grant to ask for, no pre-join, no camera of its own. Remote
// video is attached to a visible element, as the room does (adaptiveStream pauses what is not shown).
import { Room, RoomEvent, Track, VideoPresets } from "livekit-client";

const room = new Room({ adaptiveStream: true, dynacast: true, videoCaptureDefaults: { resolution: VideoPresets.h720.resolution } });
room.on(RoomEvent.TrackSubscribed, (track) => {
  if (track.kind !== Track.Kind.Video) return;
  const video = track.attach() as HTMLVideoElement;
  video.width = 640;
  video.height = 360;
  document.body.append(video);
});

const bench = window as unknown as { floorReady: boolean; join: (url: string, token: string) => Promise<void> };
bench.join = (url, token) => room.connect(url, token);
bench.floorReady = true;
