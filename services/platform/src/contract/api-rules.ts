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
  /** The text a meeting list is searched for (title or invited address), in characters after trimming. */
  searchMaxLength: 200,
  /** The usage overview's period, in UTC days (today included). */
  usageDaysDefault: 30,
  usageDaysMax: 90,
  /** The name a participant shows in a meeting room, in code points after trimming. */
  displayNameMaxLength: 64,
  hostsMax: 20,
  noShowAfterMinutesMin: 1,
  noShowAfterMinutesMax: 60,
  noShowAfterMinutesDefault: 5,
  /** A chat message, in code points after trimming. */
  chatMessageMaxLength: 1000,
  /** The reactions a person in a meeting room may send (a small fixed set, as in Meet and Zoom). */
  reactions: ["👍", "👏", "😂", "😮", "❤️", "🎉"],
  /** Reactions one participant may send per `reactionWindowSeconds` (more are refused with 429: no flood over the others' tiles). */
  reactionsPerWindow: 5,
  reactionWindowSeconds: 10,
} as const;

/**
 * An attendee's e-mail address: a dot-atom local part of letters, digits and `_'+-` of at most 64
 * characters, `@`, and a host name of letter-or-digit labels (hyphens inside, at most 63 each)
 * ending in an alphabetic top-level label (RFC 5321 §4.5.3.1, RFC 1123). Quoted local parts and
 * address literals are refused: no calendar sends them. At most `emailAddressMaxLength` overall.
 */
/**
 * The text of a meeting id as other services take it (the delivery log's `meetingId` filter):
 * URL-safe characters, as meeting ids are. Whether such a meeting exists is not their business.
 */
export const MEETING_ID_TEXT = /^[A-Za-z0-9_-]{1,64}$/;

export const EMAIL_ADDRESS = /^(?=[^@]{1,64}@)(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** An id the services generate (organizations, users, keys, clients, webhooks, deliveries): a UUID of any version, either case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  /** A subscription's free-text description, in characters. */
  descriptionMaxLength: 500,
  /** The per-endpoint delivery rate limit a subscriber may set, in deliveries per second. */
  rateLimitPerSecondMax: 1000,
  /** How far back `recover` reaches: its `since` may be at most this many days ago. */
  recoverWindowDays: 14,
} as const;

/** The HTTP status classes the delivery log filters by (`none`: no response arrived). */
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx", "none"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** A port an origin names: 1-65535, without leading zeros. */
const ORIGIN_PORT = "(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])";
const ORIGIN_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
/** The last label starts with a letter: never an IP address, which browsers would parse differently. */
const ORIGIN_TOP_LABEL = "[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?";

/**
 * An origin allowed to frame an organization's meetings, as typed (regular-expression source,
 * unanchored): `https://` and a host name of ASCII labels (an internationalised name in its
 * punycode form, `xn--…`), or plain `http://` for a developer's own machine only (`localhost`,
 * `127.0.0.1`: a page served over http elsewhere could be altered on the way and then frame the
 * meeting); an optional port; nothing else but an optional `/`. No wildcard, no IP address (a
 * Content-Security-Policy source cannot name an IPv6 one), no path, query or fragment.
 */
export const EMBED_ORIGIN_SOURCE =
  `(?:[Hh][Tt][Tt][Pp][Ss]://(?:${ORIGIN_LABEL}\\.)*${ORIGIN_TOP_LABEL}|[Hh][Tt][Tt][Pp]://(?:[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]|127\\.0\\.0\\.1))` +
  `(?::${ORIGIN_PORT})?/?`;
export const EMBED_ORIGIN = new RegExp(`^${EMBED_ORIGIN_SOURCE}$`);

/** Names and credentials of the dashboard and admin APIs (identity), in code points after trimming. */
export const identityLimits = {
  nameMaxLength: 100,
  organizationNameMaxLength: 200,
  passwordMinLength: 8,
  passwordMaxLength: 1024,
  redirectUrisMax: 10,
  redirectUriMaxLength: 2000,
  /**
   * Origins allowed to frame an organization's meetings. A few dozen covers every product an
   * organization embeds its meetings in (production, staging, a regional site or two); the list is
   * sent in every join page's Content-Security-Policy header, so it stays short.
   */
  embedOriginsMax: 25,
  /** One such origin as typed: a host name's 253 characters plus scheme and port fit. */
  embedOriginMaxLength: 300,
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

/**
 * Invisible format characters (\p{Cf}): bidirectional overrides such as U+202E, zero-width
 * spaces and joiners, soft hyphens. In a display name they let one person look like another
 * ("Ada" and "Ada\u200b", or a name that renders backwards), so names refuse them.
 */
export const FORMAT_CHARACTER = /\p{Cf}/u;

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

const DATE_TIME_EXAMPLE = "2025-06-01T09:00:00.000Z";

export type ParsedDateTime = { ok: true; date: Date } | { ok: false; problem: string };

/**
 * Parses an ISO 8601 date-time that carries an offset ("Z" or ±hh:mm). A time without an offset
 * is ambiguous (whose 09:00?) and refused, as are impossible dates such as 2025-02-30, which
 * `Date.parse` would silently roll over into March. A refusal's `problem` follows the field name.
 */
export function parseOffsetDateTime(value: string): ParsedDateTime {
  const match = OFFSET_DATE_TIME.exec(value);
  if (!match) {
    const offsetMissing = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    return {
      ok: false,
      problem: offsetMissing
        ? `must include a UTC offset ("Z" or ±hh:mm), for example ${DATE_TIME_EXAMPLE}`
        : `must be an ISO 8601 date-time with a UTC offset, for example ${DATE_TIME_EXAMPLE}`,
    };
  }
  const [, year, month, day, hour, minute, second = "0", fraction = "", zulu, sign, offsetHours = "0", offsetMinutes = "0"] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const [oh, om] = [Number(offsetHours), Number(offsetMinutes)];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return { ok: false, problem: `is not a calendar date (${year}-${month}-${day} does not exist)` };
  if (h > 23 || mi > 59 || s > 59) return { ok: false, problem: `has an impossible time of day (${hour}:${minute}:${second})` };
  if (!zulu && (oh > 23 || om > 59)) return { ok: false, problem: "has an impossible UTC offset" };
  const offsetMs = zulu ? 0 : (sign === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  const milliseconds = Number(fraction.padEnd(3, "0").slice(0, 3));
  // setUTCFullYear rather than Date.UTC, which would read years 0-99 as 1900-1999.
  const local = new Date(0);
  local.setUTCFullYear(y, mo - 1, d);
  local.setUTCHours(h, mi, s, milliseconds);
  return { ok: true, date: new Date(local.getTime() - offsetMs) };
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}
