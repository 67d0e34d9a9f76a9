import { createHash, randomBytes } from "node:crypto";

/**
 * The secrets of the meeting room (personal link secrets, lobby tickets, room sessions, browser
 * visitor keys): 256 random bits, base64url, stored only as their SHA-256. A lookup is an exact
 * match on a unique index, so nothing is compared byte by byte in application code.
 */
export const newRoomSecret = () => randomBytes(32).toString("base64url");

export const hashRoomSecret = (secret: string) => createHash("sha256").update(secret, "utf8").digest();

/** A plausible secret (what newRoomSecret makes), so junk is refused before any query. */
export const isRoomSecret = (value: string) => /^[A-Za-z0-9_-]{43}$/.test(value);
