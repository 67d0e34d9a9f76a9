import { identityLimits, uriSyntaxProblem } from "@svc/platform/contract";

const MAX_URI_LENGTH = identityLimits.redirectUriMaxLength;

export interface RedirectUriPolicy {
  /** Production (NODE_ENV=production): plain http only for loopback redirect URIs. */
  requireHttps: boolean;
}

/** Hosts of loopback redirect URIs (RFC 8252 §7.3: native apps listen on the device itself). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Redirect URIs are compared exactly, so they must be complete: absolute http(s) URLs without
 * a fragment (RFC 6749 §3.1.2) or credentials. In production they must be https (a code sent
 * over plain http can be read on the way), except loopback URIs, which never leave the device.
 */
export function redirectUriProblem(uri: string, policy: RedirectUriPolicy): string | undefined {
  if (uri.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  const url = URL.parse(uri);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return "must be an absolute http(s) URL";
  if (policy.requireHttps && url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    return "must be https (plain http only for loopback: 127.0.0.1, [::1] or localhost)";
  }
  if (uri.includes("#")) return "must not contain a fragment";
  if (url.username || url.password) return "must not contain credentials";
  if (/\s/.test(uri)) return "must not contain spaces";
  // A host name of DNS labels or an IP address: RFC 3986 would also allow sub-delimiters such as
  // `*` in a host, which no browser can be sent to (and the OpenAPI pattern says so).
  if (!/^(?:[A-Za-z0-9.-]+|\[::1\])$/.test(url.hostname)) return "must name its host with letters, digits, dots and hyphens, or an IP address";
  // Compared exactly with what the browser sends: ASCII as RFC 3986 spells it, nothing the URL
  // parser would rewrite.
  return uriSyntaxProblem(uri);
}
