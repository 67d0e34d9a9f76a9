import { invalidArgument } from "@svc/platform";
import { meetingLimits } from "@svc/platform/contract";

export const MAX_DISPLAY_NAME_LENGTH = meetingLimits.displayNameMaxLength;

// Control characters and line/paragraph separators: a name is one line of text.
const FORBIDDEN = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/**
 * The rule for the name a participant shows in a meeting room: 1-64 characters (code points)
 * after trimming, one line, no control characters. Returns the trimmed name.
 */
export function validateDisplayName(raw: string): string {
  const name = raw.trim();
  const length = [...name].length;
  if (length === 0) throw invalidArgument(["displayName is required"]);
  if (length > MAX_DISPLAY_NAME_LENGTH) throw invalidArgument([`displayName must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`]);
  if (FORBIDDEN.test(name)) throw invalidArgument(["displayName must not contain control characters or line breaks"]);
  return name;
}
