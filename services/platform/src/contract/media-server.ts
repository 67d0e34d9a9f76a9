/**
 * The media server and client the meeting room is built and tested with (docs/deploying.md
 * "LiveKit", docs/meeting-room.md). The room page's livekit-client signals over LiveKit's `/rtc/v1`
 * and waits for negotiation answers that old servers never send (livekit/client-sdk-js#1887):
 * against LiveKit 1.8.4 publishing times out after 15 s. So the page refuses, with an explanation,
 * a server older than the minimum (after connecting, from the server's own version), and the
 * meeting service says at start which server it needs.
 */
export const MINIMUM_LIVEKIT_SERVER_VERSION = "1.13.5";

/**
 * The oldest livekit-client the room page may be built with: the first release tested against
 * LiveKit 1.13.5 here. A test checks the version the served page announces to LiveKit.
 */
export const MINIMUM_LIVEKIT_CLIENT_VERSION = "2.23.0";
