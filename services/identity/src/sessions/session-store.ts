import { randomBytes, timingSafeEqual } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { hashToken, SESSION_TOKEN_PREFIX, unauthenticated, type Logger } from "@svc/platform";

/** `svc_sess_` + base64url of 32 random bytes. */
const SESSION_TOKEN_SHAPE = /^svc_sess_[A-Za-z0-9_-]{43}$/;
const CSRF_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface SessionTimeouts {
  idleSeconds: number;
  absoluteSeconds: number;
}

export interface NewSession {
  sessionToken: string;
  csrfToken: string;
  expiresAt: Date;
}

/** A live dashboard session, as the handlers check callers against it. */
export interface SessionRecord {
  sessionId: string;
  userId: string;
  orgId: string;
  role: "admin" | "member";
  csrfHash: string;
  expiresAt: Date;
}

/**
 * The stored sessions (Postgres: db/pg-session-record-store.ts): found by the SHA-256 of the session
 * token only, never by the token.
 */
export interface SessionRecordStore {
  /** Stores a session ending `absoluteSeconds` from now; answers that end. */
  insert(session: { userId: string; orgId: string; tokenHash: string; csrfHash: string; absoluteSeconds: number }): Promise<Date>;
  /**
   * The live session with this token hash: before its absolute end, used within the idle timeout,
   * and its user active. Reading it changes nothing (see `touch`).
   */
  live(tokenHash: string, idleSeconds: number): Promise<SessionRecord | undefined>;
  /** Moves a session's activity to now (its idle clock starts again). */
  touch(sessionId: string): Promise<void>;
  deleteByTokenHash(tokenHash: string): Promise<void>;
  deleteByUser(userId: string): Promise<void>;
  /** Removes sessions past their absolute end or idle for longer than the idle timeout, at most `limit`; answers how many. */
  purgeEnded(idleSeconds: number, limit?: number): Promise<number>;
}

/** Dashboard sessions as the handlers use them: tokens, timeouts and the CSRF check over the stored sessions. */
export interface SessionStore {
  readonly timeouts: SessionTimeouts;
  create(user: { userId: string; orgId: string }): Promise<NewSession>;
  /**
   * The live session of this token: UNAUTHENTICATED when it ended (signed out, idle too long,
   * past its absolute end, user deactivated); PERMISSION_DENIED when `csrfToken` is not its CSRF token.
   */
  verify(sessionToken: string, csrfToken: string | undefined): Promise<SessionRecord>;
  end(sessionToken: string): Promise<void>;
  endAllOf(userId: string): Promise<void>;
  close(): void;
}

export const isSessionToken = (token: string) => token.startsWith(SESSION_TOKEN_PREFIX);

const ENDED = "Session ended or invalid; sign in again";
export const CSRF_REFUSED = "Missing or invalid CSRF token (send the X-CSRF-Token header with the value of the CSRF cookie)";
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Dashboard sessions: an opaque random token (the cookie) and a CSRF token, of which only the
 * SHA-256 is stored. Sessions are never put in the shared verification cache: every request
 * reads the row (and, once the CSRF token matched, touches it), so sign-out, the idle timeout and deactivation act at once.
 */
export function createSessionStore(records: SessionRecordStore, timeouts: SessionTimeouts, logger: Logger): SessionStore {
  const purge = setInterval(() => {
    records.purgeEnded(timeouts.idleSeconds).catch((error: unknown) => logger.warn({ err: error }, "could not remove ended sessions"));
  }, PURGE_INTERVAL_MS);
  purge.unref();
  return {
    timeouts,
    async create(user) {
      const sessionToken = SESSION_TOKEN_PREFIX + randomBytes(32).toString("base64url");
      const csrfToken = randomBytes(32).toString("base64url");
      const expiresAt = await records.insert({
        userId: user.userId,
        orgId: user.orgId,
        tokenHash: hashToken(sessionToken),
        csrfHash: hashToken(csrfToken),
        absoluteSeconds: timeouts.absoluteSeconds,
      });
      return { sessionToken, csrfToken, expiresAt };
    },
    async verify(sessionToken, csrfToken) {
      if (!SESSION_TOKEN_SHAPE.test(sessionToken)) throw unauthenticated(ENDED);
      const session = await records.live(hashToken(sessionToken), timeouts.idleSeconds);
      if (!session) throw unauthenticated(ENDED);
      const csrfValid =
        csrfToken !== undefined &&
        CSRF_TOKEN_SHAPE.test(csrfToken) &&
        timingSafeEqual(Buffer.from(hashToken(csrfToken), "hex"), Buffer.from(session.csrfHash, "hex"));
      if (!csrfValid) throw new ConnectError(CSRF_REFUSED, Code.PermissionDenied);
      // Only now is it the owner's activity: a cross-site request (the cookie without the CSRF
      // token) must not keep a session alive past its idle timeout.
      await records.touch(session.sessionId);
      return session;
    },
    async end(sessionToken) {
      if (SESSION_TOKEN_SHAPE.test(sessionToken)) await records.deleteByTokenHash(hashToken(sessionToken));
    },
    endAllOf: (userId) => records.deleteByUser(userId),
    close: () => clearInterval(purge),
  };
}
