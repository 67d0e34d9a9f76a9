import type { CacheRead } from "@svc/platform";

// What the gateway's middleware leaves on `res.locals` for the handlers after it, typed once here
// (Express merges this interface into every `res.locals`).
declare global {
  namespace Express {
    interface Locals {
      /** Set by request-id.ts for every request. */
      requestId: string;
      /** The credential to forward, `Bearer …` (bearer.ts). */
      authorization?: string;
      /** A dashboard session's CSRF token, forwarded with it (bearer.ts). */
      csrfToken?: string;
      /** What the shared credential cache held for the token; the rate limiter read it (rate-limit.ts). */
      credentialCacheRead?: CacheRead;
    }
  }
}
