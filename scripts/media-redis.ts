// A private Redis for one media plane (LiveKit + Egress) on loopback. Egress talks to LiveKit only
// through Redis (psrpc over pub/sub), and Redis pub/sub channels are shared by every database
// number and key prefix: two LiveKit+Egress pairs on one Redis would take each other's recording
// requests. So each embedded or test media plane that records gets a Redis of its own, in memory
// only, from Debian's redis-server (scripts/infra and `scripts/egress deps` install it).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import { STOP_BOUNDS_AFTER_SERVICES_MS, stopProcess } from "./supervision.ts";

export interface RunningMediaRedis {
  process: ChildProcess;
  /** host:port, the form LiveKit's and Egress's `redis.address` take. */
  address: string;
  stop(): Promise<void>;
}

/** Whether redis-server is installed (without it nothing can record). */
export function hasRedisServer(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(1_000, () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
  });
}

/** Starts redis-server on 127.0.0.1:`port`, without persistence, and waits until it answers PING. */
export async function startMediaRedis(port: number): Promise<RunningMediaRedis> {
  const child = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--loglevel", "warning"], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: "/tmp",
  });
  // At log level "warning" it says little; a start failure (a taken port) goes to stdout.
  let errors = "";
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4_000)));
  const stop = () => stopProcess(child, STOP_BOUNDS_AFTER_SERVICES_MS.mediaRedis);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    // EADDRINUSE named as Node names it, so that the test stacks start again on fresh ports.
    if (child.exitCode !== null)
      throw new Error(`redis-server exited with ${child.exitCode} at start${/already in use/i.test(errors) ? " (EADDRINUSE)" : ""}: ${errors}`);
    if (await answersPing(port)) return { process: child, address: `127.0.0.1:${port}`, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server did not answer on 127.0.0.1:${port} within 10 s`);
}
