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
      frameAncestors: ["'none'"],
    },
  });
  return (req, res, next) => {
    // Only our own pages may use the camera, microphone and screen capture; nothing else is needed.
    res.set("Permissions-Policy", permissions);
    csp(req, res, next);
  };
}
