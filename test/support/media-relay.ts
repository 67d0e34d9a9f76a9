// One participant's media on a link the test controls. Chromium's network emulation does not reach
// WebRTC's UDP, and shaping loopback (tc/netem) would disturb every other test on the machine, so
// the participant's page is made to reach the media server over ICE-TCP (RFC 6544) through this
// relay, the only path it is offered (`carry`). On TCP, media packets travel framed
// (RFC 4571: a 2-byte length, then the packet), so the relay can drop single packets of what the
// browser sends exactly as a lossy network drops datagrams; what the media server sends passes as is.
import net from "node:net";
import type { BrowserContext } from "playwright-core";

/**
 * What gets through from the participant to the media server:
 * - `clear`: everything;
 * - `lossy`: three media packets (RTP) of every four are lost; the connection checks (STUN) and the
 *   reports about the media (RTCP) pass, as on a congested link that still carries small packets;
 * - `media-lost`: no media packet and no report; only the connection checks pass, so the connection
 *   stays up (nobody reconnects) while nothing of the person's sound and picture arrives.
 */
export type UplinkCondition = "clear" | "lossy" | "media-lost";

export interface MediaRelay {
  /**
   * Makes the pages of `context` reach the media server only through this relay: they are offered
   * its TCP candidates, pointed here, and none of its UDP ones. Before the context opens a page.
   */
  carry(context: BrowserContext): Promise<void>;
  /** Changes what gets through, for the connections open now and later. */
  set(condition: UplinkCondition): void;
  /** Media packets (RTP) received from the participant so far, passed or dropped: proof the media takes this path. */
  mediaPacketsSeen(): number;
  close(): Promise<void>;
}

/** The kind of a packet in a shared ICE/DTLS/SRTP stream, by its first bytes (RFC 7983, RFC 5761). */
function packetKind(packet: Buffer): "stun" | "dtls" | "rtp" | "rtcp" | "other" {
  const first = packet[0] ?? 0;
  if (first <= 3) return "stun";
  if (first >= 20 && first <= 63) return "dtls";
  if (first >= 128 && first <= 191) {
    // RTCP's packet types 192-223 sit where RTP's marker bit and payload type are.
    const second = packet[1] ?? 0;
    return second >= 192 && second <= 223 ? "rtcp" : "rtp";
  }
  return "other";
}

export async function startMediaRelay(): Promise<MediaRelay> {
  let condition: UplinkCondition = "clear";
  let rtpSeen = 0;
  // Where the media server takes ICE-TCP: the page reports the port its candidates name (`carry`).
  let reportTarget!: (port: number) => void;
  const target = new Promise<number>((resolve) => (reportTarget = resolve));
  const sockets = new Set<net.Socket>();

  const passes = (packet: Buffer): boolean => {
    const kind = packetKind(packet);
    if (kind === "rtp") rtpSeen += 1;
    if (condition === "clear" || kind === "stun" || kind === "dtls") return true;
    if (condition === "lossy") return kind !== "rtp" || rtpSeen % 4 === 0;
    return false;
  };

  const server = net.createServer((client) => {
    const upstream = new net.Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pause();
    void target.then((port) => {
      upstream.connect(port, "127.0.0.1", () => client.resume());
      upstream.pipe(client);
    });
    // The browser's stream, frame by frame (a frame may arrive in pieces or several in one chunk).
    let pending = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (pending.length < 2 + length) break;
        const frame = pending.subarray(0, 2 + length);
        pending = pending.subarray(2 + length);
        if (passes(frame.subarray(2))) upstream.write(frame);
      }
    });
    client.once("end", () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    async carry(context) {
      await context.exposeBinding("__mediaServerTcpPort", (_source, mediaPort: number) => reportTarget(mediaPort));
      await context.addInitScript(offerOnlyTheRelay, port);
    },
    set: (next) => void (condition = next),
    mediaPacketsSeen: () => rtpSeen,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * In the page, before its scripts: every ICE candidate the media server offers (in a session
 * description or trickled) is dropped unless it is a TCP one, which is pointed at the relay; the
 * port it named is reported to the relay. The media server is ICE-lite (scripts/media-server.ts):
 * it never checks a path itself, so the browser has no other way to it.
 */
function offerOnlyTheRelay(relayPort: number) {
  const report = (mediaPort: number) => void (window as unknown as { __mediaServerTcpPort: (port: number) => Promise<void> }).__mediaServerTcpPort(mediaPort);
  // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...
  const throughRelay = (candidate: string): string | undefined => {
    const fields = candidate.split(" ");
    if (fields[2]?.toLowerCase() !== "tcp") return undefined;
    report(Number(fields[5]));
    fields[4] = "127.0.0.1";
    fields[5] = String(relayPort);
    return fields.join(" ");
  };
  const connection = RTCPeerConnection.prototype;
  // The standard forms only (the legacy callback overloads are not used by livekit-client).
  const setRemoteDescription: (this: RTCPeerConnection, description: RTCSessionDescriptionInit) => Promise<void> = connection.setRemoteDescription;
  connection.setRemoteDescription = function (this: RTCPeerConnection, description: RTCSessionDescriptionInit) {
    if (description.sdp === undefined) return setRemoteDescription.call(this, description);
    const sdp = description.sdp
      .split("\r\n")
      .flatMap((line) => {
        if (!line.startsWith("a=candidate:")) return [line];
        const pointed = throughRelay(line.slice("a=".length));
        return pointed ? [`a=${pointed}`] : [];
      })
      .join("\r\n");
    return setRemoteDescription.call(this, { type: description.type, sdp });
  };
  const addIceCandidate: (this: RTCPeerConnection, candidate?: RTCIceCandidateInit | null) => Promise<void> = connection.addIceCandidate;
  connection.addIceCandidate = function (this: RTCPeerConnection, candidate?: RTCIceCandidateInit | null) {
    if (!candidate?.candidate) return addIceCandidate.call(this, candidate);
    const pointed = throughRelay(candidate.candidate);
    if (!pointed) return Promise.resolve();
    const { sdpMid, sdpMLineIndex, usernameFragment } = candidate;
    return addIceCandidate.call(this, { candidate: pointed, sdpMid, sdpMLineIndex, usernameFragment });
  };
}
