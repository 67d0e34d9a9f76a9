import { REDACTED } from "@svc/platform";

/** Parameters of a redirect that stay readable in logs: neither credentials nor client-chosen values. */
const READABLE_PARAMETERS = new Set(["error", "iss"]);

/**
 * A Location header fit for a log: the values of its query and fragment parameters are replaced
 * by "[redacted]" (except `error` and `iss`), because OAuth redirects carry authorization codes,
 * `state` and, in fragment response modes, tokens. Paths and parameter names stay, for diagnosis.
 */
export function redactedLocation(location: string): string {
  const hashAt = location.indexOf("#");
  const beforeHash = hashAt < 0 ? location : location.slice(0, hashAt);
  const queryAt = beforeHash.indexOf("?");
  const path = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const redact = (parameters: string) =>
    parameters
      .split("&")
      .map((pair) => {
        const equals = pair.indexOf("=");
        const name = equals < 0 ? pair : pair.slice(0, equals);
        return READABLE_PARAMETERS.has(name) ? pair : `${name}=${REDACTED}`;
      })
      .join("&");
  const query = queryAt < 0 ? "" : `?${redact(beforeHash.slice(queryAt + 1))}`;
  const fragment = hashAt < 0 ? "" : `#${redact(location.slice(hashAt + 1))}`;
  return `${path}${query}${fragment}`;
}
