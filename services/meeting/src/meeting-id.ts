import { randomBytes } from "node:crypto";

/**
 * A new meeting id: base64url of 16 random bytes, 128 bits from the CSPRNG. The join URL carries
 * it and needs no password, so guessing one must be hopeless (docs/decisions/0006-join-url-capability-and-livekit.md).
 */
export function newMeetingId(): string {
  return randomBytes(16).toString("base64url");
}

/** Whether `value` has the shape of a meeting id; anything else cannot name a meeting. */
export function isMeetingId(value: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(value);
}
