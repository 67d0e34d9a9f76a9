/**
 * The join-grant API's rule for display names (services/meeting/src/room/display-name.ts): 1-64
 * characters (code points) after trimming, one line, no control or invisible format characters.
 */
import { FORMAT_CHARACTER, LINE_BREAKING_OR_CONTROL, meetingLimits } from "@svc/platform/contract";

export const MAX_DISPLAY_NAME_LENGTH = meetingLimits.displayNameMaxLength;

export type DisplayNameCheck = { ok: true; name: string } | { ok: false; message: string };

/** Checks a typed name the way the API does, so most mistakes are explained before any request. */
export function checkDisplayName(raw: string): DisplayNameCheck {
  const name = raw.trim();
  // Characters as people count them (code points), not UTF-16 units: an emoji is one.
  const length = [...name].length;
  if (length === 0) return { ok: false, message: "Enter your name: others in the meeting will see it." };
  if (length > MAX_DISPLAY_NAME_LENGTH) {
    return { ok: false, message: `Your name is too long: use at most ${MAX_DISPLAY_NAME_LENGTH} characters (it has ${length}).` };
  }
  if (LINE_BREAKING_OR_CONTROL.test(name)) return { ok: false, message: "Your name must be one line without control characters (such as tabs): remove them." };
  if (FORMAT_CHARACTER.test(name))
    return { ok: false, message: "Your name contains invisible formatting characters (such as a right-to-left override): remove them." };
  return { ok: true, name };
}
