import type { Request, Response } from "express";

/**
 * The dashboard's cookies. The session cookie is HttpOnly and SameSite=Lax; the CSRF cookie is
 * readable by the page's script (it copies the value into the X-CSRF-Token header, which a
 * cross-site form or request cannot set) and SameSite=Strict. On https both are Secure and use
 * the `__Host-` prefix (no Domain, Path=/), so a sibling subdomain cannot plant them. What they
 * hold is decided by identity; the gateway only carries them.
 */
export interface SessionCookies {
  readonly sessionName: string;
  readonly csrfName: string;
  /** The session token from the request's cookie, if any. */
  sessionOf(req: Request): string | undefined;
  set(res: Response, session: { sessionToken: string; csrfToken: string; expiresAt: Date }): void;
  clear(res: Response): void;
}

export function sessionCookies(publicUrl: string): SessionCookies {
  const secure = new URL(publicUrl).protocol === "https:";
  const sessionName = secure ? "__Host-svc_session" : "svc_session";
  const csrfName = secure ? "__Host-svc_csrf" : "svc_csrf";
  const base = { path: "/", secure } as const;
  return {
    sessionName,
    csrfName,
    sessionOf(req) {
      for (const part of (req.headers.cookie ?? "").split(";")) {
        const separator = part.indexOf("=");
        if (separator > 0 && part.slice(0, separator).trim() === sessionName) return part.slice(separator + 1).trim() || undefined;
      }
      return undefined;
    },
    set(res, session) {
      const maxAge = Math.max(0, session.expiresAt.getTime() - Date.now());
      res.cookie(sessionName, session.sessionToken, { ...base, httpOnly: true, sameSite: "lax", maxAge });
      res.cookie(csrfName, session.csrfToken, { ...base, httpOnly: false, sameSite: "strict", maxAge });
    },
    clear(res) {
      res.clearCookie(sessionName, { ...base, httpOnly: true, sameSite: "lax" });
      res.clearCookie(csrfName, { ...base, httpOnly: false, sameSite: "strict" });
    },
  };
}
