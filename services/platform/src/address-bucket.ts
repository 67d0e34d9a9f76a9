import { isIPv4, isIPv6 } from "node:net";

/**
 * The key a per-address rate limit counts a client under. An IPv4 address is one key; an IPv6
 * address is keyed on its /64, since one subscriber commonly holds a whole /64 (RFC 6177) and
 * could otherwise take a fresh address for every request. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`, how a dual-stack socket reports IPv4 clients) counts as its IPv4 address.
 * Anything else (empty, unparsable) is one shared key, so it can never escape the limit.
 */
export function addressBucket(address: string): string {
  const bare = address.trim().replace(/^\[|\]$/g, "");
  if (isIPv4(bare)) return bare;
  const unzoned = bare.split("%")[0]!;
  if (!isIPv6(unzoned)) return "unknown";
  const groups = ipv6Groups(unzoned);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
