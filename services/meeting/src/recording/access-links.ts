import { createHmac, timingSafeEqual } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { invalidArgument } from "@svc/platform";

/** The longest a link may live: 7 days. */
export const MAX_LINK_SECONDS = 604_800;

/** When a link asked to last `expiresInSeconds` (0: `defaultSeconds`) expires; INVALID_ARGUMENT outside 1 s to 7 days. */
export function linkExpiry(expiresInSeconds: number, defaultSeconds: number): Date {
  const seconds = expiresInSeconds === 0 ? defaultSeconds : expiresInSeconds;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_LINK_SECONDS)
    throw invalidArgument([`expiresInSeconds must be a whole number of seconds from 1 to ${MAX_LINK_SECONDS}`]);
  return new Date(Date.now() + seconds * 1_000);
}

/** What the holder of a link that does not let them in is told (PERMISSION_DENIED). */
export const linkRefusal = (problem: "invalid" | "expired") =>
  new ConnectError(problem === "expired" ? "This download link has expired" : "This download link is not valid", Code.PermissionDenied);

/**
 * Signed, expiring access links to recording files and to transcripts: `<payload>.<signature>`,
 * both base64url, the payload `<id>.<expiry in Unix seconds>` and the signature its HMAC-SHA256
 * with RECORDING_LINK_SECRET over the payload prefixed with what it opens (`svc.recording-link.v1.`,
 * `svc.transcript-link.v1.`), so a link to one kind never opens the other kind's file of the same id. Holding one is the permission to download that file until it expires
 * (a scheduler hands it to its user); nothing is stored, so a link cannot be revoked, only
 * outlived, or made useless by deleting the recording.
 */
export function createAccessLinks(secret: string | undefined, opens: "recording" | "transcript" = "recording") {
  const sign = (payload: string) =>
    createHmac("sha256", secret ?? "")
      .update(`svc.${opens}-link.v1.${payload}`)
      .digest();

  return {
    /** False without RECORDING_LINK_SECRET in production: no link is issued or accepted. */
    enabled: secret !== undefined,

    issue(id: string, expiresAt: Date): string {
      const payload = `${id}.${Math.floor(expiresAt.getTime() / 1_000)}`;
      return `${Buffer.from(payload).toString("base64url")}.${sign(payload).toString("base64url")}`;
    },

    /** The recording (or transcript) a token names, or why it does not let anyone in. */
    verify(token: string, now = new Date()): { ok: true; id: string } | { ok: false; problem: "invalid" | "expired" } {
      if (secret === undefined) return { ok: false, problem: "invalid" };
      const match = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return { ok: false, problem: "invalid" };
      const payload = Buffer.from(match[1]!, "base64url").toString();
      const given = Buffer.from(match[2]!, "base64url");
      const expected = sign(payload);
      // Constant time: the comparison tells nothing about how much of a forged signature matched.
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, problem: "invalid" };
      const parts = /^([0-9a-f-]{36})\.(\d{1,12})$/.exec(payload);
      if (!parts) return { ok: false, problem: "invalid" };
      if (Number(parts[2]) * 1_000 <= now.getTime()) return { ok: false, problem: "expired" };
      return { ok: true, id: parts[1]! };
    },
  };
}

export type AccessLinks = ReturnType<typeof createAccessLinks>;
