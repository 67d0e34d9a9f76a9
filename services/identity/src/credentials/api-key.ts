import { randomBytes } from "node:crypto";
import { hashToken } from "@svc/platform";

export const API_KEY_PREFIX = "svc_";
/** Prefixes of the other token kinds: a new API key never starts with one, so the kinds never overlap. */
const OTHER_KIND_PREFIXES = ["svc_oauth_", "svc_rt_", "svc_sess_"];
/** `svc_` + base64url of 32 random bytes (256 bits): 43 characters, no padding. */
const API_KEY_SHAPE = /^svc_[A-Za-z0-9_-]{43}$/;
/** Enough of the key to recognise it in a list (8 of its 43 random characters), not to use it. */
const DISPLAY_PREFIX_LENGTH = 12;

export interface NewApiKey {
  key: string;
  keyHash: string;
  displayPrefix: string;
}

export function generateApiKey(): NewApiKey {
  let key: string;
  do key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  while (OTHER_KIND_PREFIXES.some((prefix) => key.startsWith(prefix)));
  return { key, keyHash: hashToken(key), displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Whether a token can be an API key at all; anything else is refused without a database look-up. */
export const hasApiKeyShape = (token: string) => API_KEY_SHAPE.test(token);
