// The media server (LiveKit) on loopback, for `npm start` and the integration tests: its
// configuration, and starting and stopping its process. The binary comes from `scripts/livekit`
// (built once from the Go module proxy and cached). In Kubernetes LiveKit runs from its own Helm
// chart instead; the meeting service only needs its URL and API key.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { STOP_BOUNDS_AFTER_SERVICES_MS } from "./supervision.ts";

const root = path.resolve(import.meta.dirname, "..");

export interface MediaServerOptions {
  /** HTTP and WebSocket signalling (room service API and browsers). */
  port: number;
  /** ICE over TCP, the fallback when UDP is blocked. */
  rtcTcpPort: number;
  /** The single UDP port all media is multiplexed on. */
  rtcUdpPort: number;
  apiKey: string;
  apiSecret: string;
  /** Where LiveKit posts its signed webhooks: the meeting service's listener. */
  webhookUrl: string;
  logLevel?: "debug" | "info" | "warn" | "error";
  /**
   * host:port of the Redis LiveKit shares with Egress (recording): Egress takes its requests only
   * over Redis. Unset, LiveKit keeps its state in memory, as a single node.
   */
  redisAddress?: string;
  /**
   * LiveKit's `room.auto_create` (default false, as every deployment of ours must have it). True
   * only to test that the meeting service refuses to serve joins through a misconfigured server.
   */
  autoCreateRooms?: boolean;
}

/**
 * LiveKit's configuration for a loopback deployment; each choice is explained where it is set
 * (docs/decisions/0006-join-url-capability-and-livekit.md). JSON is YAML, so it is passed as a config body.
 */
export function mediaServerConfig(options: MediaServerOptions) {
  return {
    port: options.port,
    bind_addresses: ["127.0.0.1"],
    rtc: {
      tcp_port: options.rtcTcpPort,
      udp_port: options.rtcUdpPort,
      node_ip: "127.0.0.1",
      use_external_ip: false,
      // Without these two the UDP listener binds only non-loopback interfaces while 127.0.0.1 is
      // advertised, and media silently takes another path.
      enable_loopback_candidate: true,
      ips: { includes: ["127.0.0.1/32"] },
      // Clients reach this server directly: ICE-lite saves about a second of connection set-up.
      use_ice_lite: true,
    },
    keys: { [options.apiKey]: options.apiSecret },
    webhook: { api_key: options.apiKey, urls: [options.webhookUrl] },
    // The meeting service decides when a meeting ends (its own grace period); the room itself
    // closes 20 s after the last person leaves. Rooms are opened only by the meeting service
    // (with their participant cap, on every join grant): a connection never creates one, so a
    // grant taken while a room was open cannot recreate it without its cap after it closed.
    room: { auto_create: options.autoCreateRooms ?? false, empty_timeout: 300, departure_timeout: 20 },
    logging: { level: options.logLevel ?? "warn" },
    ...(options.redisAddress ? { redis: { address: options.redisAddress } } : {}),
  };
}

/** Builds LiveKit if needed and returns the path of its binary. */
export function mediaServerBinary(): string {
  return execFileSync("bash", [path.join(root, "scripts/livekit"), "path"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

export interface RunningMediaServer {
  process: ChildProcess;
  /** http://127.0.0.1:<port>, the API URL; browsers use the same address as ws://. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts LiveKit and waits until it answers. Its configuration (with the API secret) goes through
 * the environment, not the command line, so it does not show in the process list.
 */
export async function startMediaServer(
  options: MediaServerOptions & { binary?: string; onOutput?: (chunk: Buffer) => void; stdio?: "inherit" | "pipe" },
): Promise<RunningMediaServer> {
  const binary = options.binary ?? mediaServerBinary();
  const child = spawn(binary, [], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LIVEKIT_CONFIG: JSON.stringify(mediaServerConfig(options)) },
    stdio: ["ignore", options.stdio ?? "pipe", options.stdio ?? "pipe"],
  });
  if (options.onOutput) {
    child.stdout?.on("data", options.onOutput);
    child.stderr?.on("data", options.onOutput);
  }
  const url = `http://127.0.0.1:${options.port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      // The first SIGTERM only drains (waits for participants to leave); the second exits at once.
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGTERM"), 200).unref();
      setTimeout(() => child.kill("SIGKILL"), STOP_BOUNDS_AFTER_SERVICES_MS.mediaServer).unref();
    });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`livekit-server exited with ${child.exitCode} at start`);
    if (
      await fetch(url).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { process: child, url, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`livekit-server did not answer at ${url} within 30 s`);
}
