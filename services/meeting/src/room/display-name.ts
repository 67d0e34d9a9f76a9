import { invalidArgument } from "@svc/platform";
import { FORMAT_CHARACTER, LINE_BREAKING_OR_CONTROL, meetingLimits } from "@svc/platform/contract";

export const MAX_DISPLAY_NAME_LENGTH = meetingLimits.displayNameMaxLength;

/**
 * The rule for the name a participant shows in a meeting room: 1-64 characters (code points)
 * after trimming, one line, no control characters, and no invisible format characters (\p{Cf}:
 * bidirectional overrides, zero-width characters), which would let one person pass for another
 * in the room and in webhook payloads. Returns the trimmed name.
 */
export function validateDisplayName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw invalidArgument(["displayName is required"]);
  // Counted as sent (code points), so the limit does not depend on how trimming is defined.
  if ([...raw].length > MAX_DISPLAY_NAME_LENGTH) throw invalidArgument([`displayName must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`]);
  if (LINE_BREAKING_OR_CONTROL.test(name)) throw invalidArgument(["displayName must not contain control characters or line breaks"]);
  if (FORMAT_CHARACTER.test(name))
    throw invalidArgument(["displayName must not contain invisible formatting characters (such as right-to-left overrides or zero-width spaces)"]);
  return name;
}
