import net from "node:net";

/**
 * The key under which a client address is counted by every per-address limit (the gateway's
 * rate limit, the sign-in throttle, join grants). An IPv4 address is itself; an IPv6 address is its /64, because a
 * single subscriber is routinely given a whole /64 (RFC 6177, RFC 7934 §6) and could otherwise
 * take a fresh address, and a fresh allowance, for every request. An IPv4-mapped IPv6 address
 * counts as the IPv4 address it carries. Anything else (no address known) is left as it is:
 * callers pass the address their server saw, never one a client wrote.
 */
export function clientAddressKey(address: string): string {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  if (net.isIPv4(bare)) return bare;
  if (!net.isIPv6(bare)) return address;
  const hextets = expandIPv6(bare);
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return `${hextets[6]! >> 8}.${hextets[6]! & 0xff}.${hextets[7]! >> 8}.${hextets[7]! & 0xff}`;
  }
  return `${hextets
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(":")}::/64`;
}

/** The eight hextets of a valid IPv6 address (dotted-quad tail included). */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => Number.parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
