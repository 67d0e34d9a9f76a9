import type { ServerResponse } from "node:http";
import helmet from "helmet";
import type { RequestHandler } from "express";

export interface PageSecurityOptions {
  /** The LiveKit server the page's script connects to; pages without media leave it out. */
  livekitPublicUrl?: string;
  /**
   * <style> elements that a bundled library inserts at run time and that cannot be moved into a
   * style sheet, allowed one exact text at a time by its SHA-256 (`sha256-<base64>`, style-src-elem).
   */
  styleElementHashes?: string[];
  /**
   * Allows style="" attributes ('unsafe-inline' in style-src-attr only; <style> elements and scripts
   * stay strict), for a library that writes them into markup it generates. Attributes cannot run
   * script; leave it off for pages that show text people typed.
   */
  styleAttributes?: boolean;
  /**
   * The origins allowed to frame this response (the meeting page: its organization's embed
   * origins, which an earlier handler of the route looked up). Absent or empty: no site may.
   */
  embedOrigins?: (res: ServerResponse) => readonly string[];
}

/**
 * What identity stores (services/identity/src/embedding/embed-origins.ts): http(s), a host of
 * letters, digits, dots and hyphens, an optional port. Checked again here because the value goes
 * into a header: anything else would be a broken policy, so it is left out (the page then cannot
 * be framed from it, which is the safe side).
 */
const ORIGIN_SOURCE = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/;

/** The frame-ancestors sources: exactly the allowed origins, or 'none'. */
function frameAncestorsOf(origins: readonly string[]): string[] {
  const sources = origins.filter((origin) => ORIGIN_SOURCE.test(origin));
  return sources.length > 0 ? sources : ["'none'"];
}

/**
 * The strict Content-Security-Policy of every page a person sees (put it on each page route),
 * replacing helmet's default one (which the API's JSON answers keep). Scripts and styles only from our own fingerprinted files
 * (/assets), never inline; media and images also from blob: and data: (camera previews, the
 * favicon); network connections only to ourselves (the join-grant API) and to the LiveKit server
 * browsers reach, over WebSocket and over HTTP(S), which the LiveKit client uses to diagnose a
 * failed connection (/rtc/validate). Workers fall back to script-src ('self').
 */
export function pageSecurity(options: PageSecurityOptions = {}): RequestHandler {
  // Pages without a call (the dashboard, the API reference) connect only to ourselves and get no camera or microphone.
  const livekit = options.livekitPublicUrl ? new URL(options.livekitPublicUrl) : undefined;
  // Origins only: the client appends its own paths (/rtc, /rtc/validate) to the configured URL.
  // A ws: source does not admit http: (CSP matches the other way round), so both are listed.
  const livekitSources = livekit ? [`${livekit.protocol}//${livekit.host}`, `${livekit.protocol === "wss:" ? "https:" : "http:"}//${livekit.host}`] : [];
  const permissions = livekit
    ? "camera=(self), microphone=(self), display-capture=(self), geolocation=(), payment=(), usb=()"
    : "camera=(), microphone=(), display-capture=(), geolocation=(), payment=(), usb=()";
  const elementHashes = (options.styleElementHashes ?? []).map((hash) => {
    if (!/^sha256-[A-Za-z0-9+/]{43}=$/.test(hash)) throw new Error(`pageSecurity: not a SHA-256 source: ${hash}`);
    return `'${hash}'`;
  });
  const csp = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      ...(elementHashes.length > 0 ? { styleSrcElem: ["'self'", ...elementHashes] } : {}),
      ...(options.styleAttributes ? { styleSrcAttr: ["'unsafe-inline'"] } : {}),
      imgSrc: ["'self'", "data:", "blob:"],
      mediaSrc: ["'self'", "blob:"],
      connectSrc: ["'self'", ...livekitSources],
      fontSrc: ["'self'"],
      manifestSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: [(_req, res) => frameAncestorsOf(options.embedOrigins?.(res) ?? []).join(" ")],
    },
  });
  return (req, res, next) => {
    // Only our own pages may use the camera, microphone and screen capture (in a frame: when the
    // embedding page delegates them with <iframe allow="camera; microphone; display-capture">).
    res.set("Permissions-Policy", permissions);
    // X-Frame-Options must not contradict frame-ancestors (older browsers read only it): DENY
    // with 'none'; with allowed origins it goes, since it cannot name them (ALLOW-FROM is dead).
    if (frameAncestorsOf(options.embedOrigins?.(res) ?? [])[0] === "'none'") res.set("X-Frame-Options", "DENY");
    else res.removeHeader("X-Frame-Options");
    csp(req, res, next);
  };
}
