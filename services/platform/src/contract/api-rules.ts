/**
 * The rules of the public API that the gateway's OpenAPI document states and a service enforces,
 * in one place: the service that owns each rule enforces it (so gRPC callers meet it too), and
 * the document says it from the same constant, so the two cannot drift apart.
 */
export const meetingLimits = {
  titleMaxLength: 255,
  attendeesMax: 100,
  durationMaxMinutes: 1440,
  pageSizeMax: 100,
  /** The name a participant shows in a meeting room, in code points after trimming. */
  displayNameMaxLength: 64,
} as const;

/**
 * An attendee's e-mail address: a dot-atom local part of letters, digits and `_'+-` of at most 64
 * characters, `@`, and a host name of letter-or-digit labels (hyphens inside, at most 63 each)
 * ending in an alphabetic top-level label (RFC 5321 §4.5.3.1, RFC 1123). Quoted local parts and
 * address literals are refused: no calendar sends them. At most `emailAddressMaxLength` overall.
 */
export const EMAIL_ADDRESS = /^(?=[^@]{1,64}@)(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** The longest e-mail address SMTP carries (RFC 5321 path limit). */
export const emailAddressMaxLength = 254;

/** A label of a webhook target's host name: letters, digits, `-` and `_`, 1-63 characters (RFC 1035 §2.3.4). */
export const HOST_LABEL = "[A-Za-z0-9_-]{1,63}";
/** A webhook target's host name: labels joined by dots, an optional final dot (IP literals are judged apart). */
export const DNS_HOST_NAME = new RegExp(`^(?:${HOST_LABEL}\\.)*${HOST_LABEL}\\.?$`);

export const webhookLimits = {
  urlMaxLength: 2048,
  /** Entries of an `events` list, before duplicates are removed. */
  eventsMax: 20,
  pageSizeMax: 100,
} as const;

/** Names and credentials of the dashboard and admin APIs (identity), in code points after trimming. */
export const identityLimits = {
  nameMaxLength: 100,
  organizationNameMaxLength: 200,
  passwordMinLength: 8,
  passwordMaxLength: 1024,
  redirectUrisMax: 10,
  redirectUriMaxLength: 2000,
} as const;

/**
 * What `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator), spelled out as
 * regular-expression class contents: other regex dialects (the OpenAPI document's readers) do not
 * agree on `\s`.
 */
export const TRIMMED_WHITESPACE = "\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
/** C0 and C1 control characters, as class contents. */
export const CONTROL = "\\u0000-\\u001f\\u007f-\\u009f";

const emailPart = `[^@${TRIMMED_WHITESPACE}${CONTROL}]+`;
/**
 * A sign-in e-mail address, deliberately loose (deliverability is not ours to judge): one `@`, a
 * dot in the domain, no whitespace or control characters. Trimmed first; at most
 * `emailAddressMaxLength`.
 */
export const SIGN_IN_EMAIL = new RegExp(`^${emailPart}@${emailPart}\\.${emailPart}$`);

/** Control characters and line/paragraph separators: what one line of text (a name, a title) must not hold. */
export const LINE_BREAKING_OR_CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/** Ids of OAuth grants (oidc-provider's): URL-safe, 16-64 characters. */
export const GRANT_ID = /^[A-Za-z0-9_-]{16,64}$/;

/** Idempotency-Key values (draft-ietf-httpapi-idempotency-key-header), in characters. */
export const idempotencyKeyMaxLength = 255;

/**
 * An ISO 8601 date-time with a UTC offset (the RFC 3339 profile; seconds and fraction optional):
 * what the meeting service accepts for `start` and `end`. It checks the ranges (month, day,
 * hour, offset) after matching.
 */
export const OFFSET_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
