import dns from "node:dns";
import net, { type LookupFunction } from "node:net";
import { DNS_HOST_NAME, uriSyntaxProblem, webhookLimits } from "@svc/platform/contract";

/**
 * Where webhooks may be sent (the SSRF guard). A target URL must be absolute http(s) (https
 * unless insecure targets are allowed) and must not resolve to an address inside the platform's
 * network: loopback, private, link-local, CGNAT, reserved, documentation, multicast, unique-local,
 * or IPv6 transition prefixes that can embed such an address (6to4, NAT64, Teredo). The check runs
 * at registration and again on every connection (through `guardedLookup`), so a DNS change after
 * registration cannot turn a subscription into a probe of internal services, and the address
 * checked is the address connected to.
 */
export interface TargetPolicy {
  allowPrivateTargets: boolean;
  allowInsecure: boolean;
}

export const MAX_URL_LENGTH = webhookLimits.urlMaxLength;

export class TargetRefusedError extends Error {
  override readonly name = "TargetRefusedError";
}

interface Range {
  cidr: string;
  label: string;
}

// IANA special-purpose registries (RFC 6890 and successors).
const forbiddenRanges: Range[] = [
  { cidr: "0.0.0.0/8", label: "an unspecified ('this network') address" },
  { cidr: "10.0.0.0/8", label: "a private address" },
  { cidr: "100.64.0.0/10", label: "a carrier-grade NAT address" },
  { cidr: "127.0.0.0/8", label: "a loopback address" },
  { cidr: "169.254.0.0/16", label: "a link-local address" },
  { cidr: "172.16.0.0/12", label: "a private address" },
  { cidr: "192.0.0.0/24", label: "a reserved address" },
  { cidr: "192.0.2.0/24", label: "a documentation address" },
  { cidr: "192.88.99.0/24", label: "a reserved address" },
  { cidr: "192.168.0.0/16", label: "a private address" },
  { cidr: "198.18.0.0/15", label: "a reserved address" },
  { cidr: "198.51.100.0/24", label: "a documentation address" },
  { cidr: "203.0.113.0/24", label: "a documentation address" },
  { cidr: "224.0.0.0/4", label: "a multicast address" },
  { cidr: "240.0.0.0/4", label: "a reserved address" },
  // IPv6 outside global unicast (2000::/3) is refused as a whole below; these are the reserved
  // and transition blocks inside it.
  { cidr: "2001::/23", label: "a reserved IPv6 address (Teredo, benchmarking, ORCHID)" },
  { cidr: "2001:db8::/32", label: "a documentation address" },
  { cidr: "2002::/16", label: "a 6to4 address" },
  { cidr: "3fff::/20", label: "a documentation address" },
];

// Refused even when private targets are allowed: nothing legitimate lives there, and it is the
// classic SSRF prize (cloud instance credentials).
const metadataRanges: Range[] = [
  { cidr: "169.254.169.254/32", label: "a cloud metadata address" },
  { cidr: "100.100.100.200/32", label: "a cloud metadata address" },
  { cidr: "fd00:ec2::254/128", label: "a cloud metadata address" },
];

const toBlockList = (ranges: Range[]) =>
  ranges.map(({ cidr, label }) => {
    const [address, prefix] = cidr.split("/") as [string, string];
    const list = new net.BlockList();
    list.addSubnet(address, Number(prefix), net.isIPv6(address) ? "ipv6" : "ipv4");
    return { list, family: net.isIPv6(address) ? ("ipv6" as const) : ("ipv4" as const), label };
  });

const forbidden = toBlockList(forbiddenRanges);
const metadata = toBlockList(metadataRanges);
const globalUnicastV6 = new net.BlockList();
globalUnicastV6.addSubnet("2000::", 3, "ipv6");

/** Why `address` may not be a webhook target, or undefined when it may. */
export function refusalFor(address: string, allowPrivateTargets: boolean): string | undefined {
  const normalized = normalize(address);
  if (!normalized) return "not an IP address";
  const { ip, family } = normalized;
  const describe = (label: string) => `${label} (${ip})`;
  for (const range of metadata) if (range.family === family && range.list.check(ip, family)) return describe(range.label);
  if (allowPrivateTargets) return undefined;
  if (family === "ipv6" && !globalUnicastV6.check(ip, "ipv6")) return describe("a non-global IPv6 address");
  for (const range of forbidden) if (range.family === family && range.list.check(ip, family)) return describe(range.label);
  return undefined;
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it carries; zone ids are dropped. */
function normalize(address: string): { ip: string; family: "ipv4" | "ipv6" } | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (net.isIPv4(bare)) return { ip: bare, family: "ipv4" };
  if (!net.isIPv6(bare)) return undefined;
  const hextets = expandIPv6(bare);
  if (!hextets) return undefined;
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    const [high, low] = [hextets[6]!, hextets[7]!];
    return { ip: `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`, family: "ipv4" };
  }
  return { ip: bare.toLowerCase(), family: "ipv6" };
}

function expandIPv6(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[1]!.split(".").map(Number);
    text = text.slice(0, -dotted[1]!.length) + `${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => Number.parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  const hextets = [...left, ...Array<number>(zeros).fill(0), ...right];
  return hextets.length === 8 && hextets.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff) ? hextets : undefined;
}

/** The problems with a target URL's shape, each a sentence for a 400; empty when it is fine. */
export function urlProblems(value: string, policy: TargetPolicy): string[] {
  if (value.trim() === "") return ["url is required"];
  if (value.length > MAX_URL_LENGTH) return [`url must be at most ${MAX_URL_LENGTH} characters`];
  const syntaxProblem = uriSyntaxProblem(value);
  if (syntaxProblem) return [`url ${syntaxProblem}`];
  if (!URL.canParse(value)) return ["url must be an absolute http(s) URL"];
  const url = new URL(value);
  if (url.protocol !== "https:" && url.protocol !== "http:") return ["url must be an absolute http(s) URL"];
  if (url.protocol === "http:" && !policy.allowInsecure) return ["url must use https"];
  if (url.username || url.password) return ["url must not contain credentials"];
  if (!url.hostname) return ["url must name a host"];
  if (url.hostname.length > 253) return ["url host must be at most 253 characters"];
  // The WHATWG parser lets through host characters no DNS name has (`*`, `!`, `$`…).
  if (!net.isIP(url.hostname.replace(/^\[|\]$/g, "")) && !DNS_HOST_NAME.test(url.hostname)) return ["url host must be a DNS name or an IP address"];
  // What is stored is the normalised form (a bare host gains a "/"), so the limit applies to it too.
  if (url.href.length > MAX_URL_LENGTH) return [`url must be at most ${MAX_URL_LENGTH} characters`];
  return [];
}

const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * The registration-time check: refuses a URL whose host is, or resolves to, a forbidden
 * address. A host that does not resolve (yet) is accepted: it cannot reach anything now, and the
 * delivery-time check judges whatever it resolves to later.
 */
export async function checkTargetAddresses(url: URL, policy: TargetPolicy): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host)) {
    const refusal = refusalFor(host, policy.allowPrivateTargets);
    return refusal && `url points to ${refusal}`;
  }
  if (policy.allowPrivateTargets) return undefined;
  const addresses = await resolveWithin(host, RESOLVE_TIMEOUT_MS);
  if (addresses.some(({ address }) => refusalFor(address, false) !== undefined)) return resolvesToNonPublic(host);
  return undefined;
}

/**
 * The refusal of a name that resolves to a forbidden address. It names neither the address nor
 * its kind: the message reaches the caller (a 400) and the delivery log, and with the address in
 * it, registering `https://<service>.<namespace>.svc.cluster.local/` would map the cluster.
 */
const resolvesToNonPublic = (host: string) => `url host ${host} resolves to a non-public address`;

async function resolveWithin(host: string, timeoutMs: number): Promise<dns.LookupAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<dns.LookupAddress[]>((resolve) => {
    timer = setTimeout(() => resolve([]), timeoutMs);
  });
  const lookup = dns.promises.lookup(host, { all: true, verbatim: true }).catch(() => [] as dns.LookupAddress[]);
  try {
    return await Promise.race([lookup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `lookup` for outgoing connections that resolves the host, refuses the connection when any
 * of its addresses is forbidden, and otherwise hands the checked addresses to the socket: the
 * address judged is the address used (no gap for DNS rebinding between check and connect).
 */
export function guardedLookup(allowPrivateTargets: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { family: options.family, hints: options.hints, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      if (addresses.some(({ address }) => refusalFor(address, allowPrivateTargets) !== undefined)) {
        return callback(new TargetRefusedError(resolvesToNonPublic(hostname)), "", 4);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: "ENOTFOUND" }), "", 4);
      if (options.all) return (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
