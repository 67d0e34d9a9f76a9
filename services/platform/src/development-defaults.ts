import net from "node:net";
import type { z } from "zod";

/**
 * The development defaults (keys and tokens committed in this repository, so `npm start` and the
 * tests run with nothing configured) are public. They are acceptable only where nobody else can
 * reach the process: on a loopback address, outside production. This module is the one place that
 * decides where that is; each service lists which of its variables fall back to a default.
 */

/** A variable whose development default is in use, and how to make a real value. */
export interface DevelopmentDefault {
  variable: string;
  /** For example "openssl rand -hex 32". */
  howToSet: string;
}

/** Loopback: 127.0.0.0/8 and ::1 (BlockList also matches their IPv4-mapped and long IPv6 spellings). */
const loopback = new net.BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** True for a listen address only this machine can reach: a loopback IP or "localhost". Any other name may resolve anywhere. */
export function isLoopbackAddress(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (address === "localhost") return true;
  const family = net.isIP(address);
  return family !== 0 && loopback.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Why development defaults are refused for a process with this environment, or undefined where
 * they are allowed: with NODE_ENV=production, and whenever it listens on a non-loopback address
 * (HOST=0.0.0.0 exposes a well-known admin token or key to the whole network, production or not).
 */
export function developmentDefaultsRefusal(env: { NODE_ENV?: string | undefined; HOST: string }): string | undefined {
  if (env.NODE_ENV === "production") return "NODE_ENV=production";
  if (!isLoopbackAddress(env.HOST)) return `HOST=${env.HOST} is not a loopback address`;
  return undefined;
}

/** Adds one configuration problem per development default in use where they are refused (for a schema's superRefine). */
export function refuseDevelopmentDefaults(env: { NODE_ENV?: string | undefined; HOST: string }, inUse: DevelopmentDefault[], context: z.RefinementCtx): void {
  const refusal = developmentDefaultsRefusal(env);
  if (refusal === undefined) return;
  for (const { variable, howToSet } of inUse) {
    context.addIssue({ code: "custom", path: [variable], message: `is required when ${refusal}: its development default is public (${howToSet})` });
  }
}
