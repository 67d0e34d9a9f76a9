/**
 * The one reading of `Authorization: Bearer <token>` (RFC 6750 §2.1) for every process: the
 * scheme, case-insensitive; one or more spaces; a b64token of at most `MAX_TOKEN_LENGTH`
 * characters (longer than any token we issue, so nothing longer is hashed or looked up).
 */
export const MAX_TOKEN_LENGTH = 512;

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +(.*?) *$/i;

export type BearerCredential =
  | { kind: "absent" }
  /** Another scheme (Basic, …) or no scheme. */
  | { kind: "other-scheme" }
  | { kind: "empty" }
  /** Not a b64token, or longer than any of ours. */
  | { kind: "malformed" }
  | { kind: "token"; token: string };

/** True for a string that could be one of our tokens (a b64token within the length limit). */
export const isWellFormedToken = (value: string): boolean => value.length <= MAX_TOKEN_LENGTH && B64TOKEN.test(value);

export function readBearer(header: string | null | undefined): BearerCredential {
  if (header === null || header === undefined || header === "") return { kind: "absent" };
  const match = BEARER.exec(header);
  if (!match) return { kind: "other-scheme" };
  const token = match[1]!;
  if (token === "") return { kind: "empty" };
  return isWellFormedToken(token) ? { kind: "token", token } : { kind: "malformed" };
}

/** The token of a well-formed Bearer header, or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const credential = readBearer(header);
  return credential.kind === "token" ? credential.token : undefined;
}
