import "zod-openapi"; // the OpenAPI keys of `.meta()` (id, param, header, override), for the type checker
import { z } from "zod";
import { CONTROL, FORMAT_CHARACTER, idempotencyKeyMaxLength, TRIMMED_WHITESPACE, URI_PCHAR } from "@svc/platform/contract";

/**
 * The REST contract: the zod schemas the gateway's routes validate requests with and type their
 * responses by, and from which the OpenAPI document (gateway/src/openapi) is generated. A schema
 * checks the JSON shape; a rule about the values belongs to the service that owns it (so gRPC
 * callers meet it too) and is stated here with `.meta()` from the same constant
 * (`@svc/platform/contract`), so the document says what the service enforces.
 */

export const ErrorBody = z
  .object({
    error: z.string().meta({ description: "Human-readable message naming what was wrong." }),
    requestId: z.string().optional().meta({ description: "Also in the X-Request-Id response header." }),
  })
  .meta({ id: "Error" });

/** A timestamp in a response: ISO 8601 in UTC with milliseconds. */
export const dateTime = (description?: string) => z.string().meta({ format: "date-time", ...(description ? { description } : {}) });
export const nullableDateTime = (description?: string) =>
  dateTime()
    .nullable()
    .meta(description ? { description } : {});

/**
 * An ISO 8601 date-time a client sends: a string for the service to judge (a UTC offset is
 * required, impossible dates are refused), documented as RFC 3339 `date-time`.
 */
export const requestDateTime = (field: string, description: string) =>
  z.string({ error: `${field} must be a string (an ISO 8601 date-time) or null` }).meta({ format: "date-time", description });

/** A UUID in a response. */
export const uuid = (description?: string) => z.string().meta({ format: "uuid", ...(description ? { description } : {}) });

/** The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header); the owning service stores and judges it. */
export const IdempotencyKeyHeader = z
  .string()
  .optional()
  .meta({
    description:
      'Makes a retry safe: the first request with a key runs and its response is kept for 24 hours; the same key with the same body answers that response again (with `Idempotent-Replayed: true`) and creates nothing; the same key with a different body is 422; while the first is still being processed, 409. Keys are scoped to your organization. 1-255 visible ASCII characters, bare or as a structured-field string (`"…"`).',
    // The rule as a pattern: a structured-field string of 1-255 visible ASCII characters, or the
    // bare characters (documented without a leading quote, which would read as a malformed string).
    override: {
      type: "string",
      minLength: 1,
      maxLength: idempotencyKeyMaxLength + 2,
      pattern: `^(?:"[\\x21-\\x7E]{1,${idempotencyKeyMaxLength}}"|[\\x21\\x23-\\x7E][\\x21-\\x7E]{0,${idempotencyKeyMaxLength - 1}})$`,
      examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'],
    },
  });

/**
 * FORMAT_CHARACTER's characters of the Basic Multilingual Plane as the body of a character class
 * (`\u00ad\u0600-\u0605…`), derived from the rule, for the document's patterns: other tools read
 * them without Unicode property escapes (JSON Schema's regular expressions, Python's in
 * schemathesis). Format characters above U+FFFF cannot be written alike in both dialects; the
 * service still refuses them. Computed here, where the document is built, not at every service's start.
 */
const FORMAT_CHARACTER_BMP_CLASS: string = (() => {
  const hex = (code: number) => `\\u${code.toString(16).padStart(4, "0")}`;
  const ranges: string[] = [];
  for (let code = 0; code <= 0xffff; code++) {
    if (!FORMAT_CHARACTER.test(String.fromCharCode(code))) continue;
    let last = code;
    while (last + 1 <= 0xffff && FORMAT_CHARACTER.test(String.fromCharCode(last + 1))) last++;
    ranges.push(last === code ? hex(code) : `${hex(code)}-${hex(last)}`);
    code = last;
  }
  return ranges.join("");
})();

const whitespace = `[${TRIMMED_WHITESPACE}]*`;
const visible = `[^${TRIMMED_WHITESPACE}${CONTROL}]`;
const inLine = `[^${CONTROL}\\u2028\\u2029]`;
const visibleNotFormat = `[^${TRIMMED_WHITESPACE}${CONTROL}${FORMAT_CHARACTER_BMP_CLASS}]`;
const inLineNotFormat = `[^${CONTROL}\\u2028\\u2029${FORMAT_CHARACTER_BMP_CLASS}]`;

/** A pattern for a value the service trims before judging it: `inner` with whitespace around. */
export const trimmedPattern = (inner: string) => `^${whitespace}(?:${inner})${whitespace}$`;

/**
 * One line of text as the services accept it (a title, a name): trimmed, then 1-`maxLength`
 * characters without control characters or line breaks. The shape is checked here; the rule is
 * the owning service's (`LINE_BREAKING_OR_CONTROL`), stated from the same character classes.
 */
export const oneLineText = (field: string, maxLength: number, description: string) =>
  z.string({ error: `${field} must be a string` }).meta({
    description: `${description} At most ${maxLength} characters as sent; trimmed, and then not empty; one line, no control characters.`,
    minLength: 1,
    maxLength,
    pattern: trimmedPattern(`${visible}(?:${inLine}*${visible})?`),
  });

/**
 * A name shown to other people (a participant's display name): one line of text without the
 * invisible format characters either (`FORMAT_CHARACTER`, whose rule the meeting service applies),
 * which would let one person pass for another.
 */
export const personName = (field: string, maxLength: number, description: string) =>
  z.string({ error: `${field} must be a string` }).meta({
    description: `${description} At most ${maxLength} characters as sent; trimmed, and then not empty; one line, no control or invisible formatting characters (such as right-to-left overrides or zero-width spaces).`,
    minLength: 1,
    maxLength,
    pattern: trimmedPattern(`${visibleNotFormat}(?:${inLineNotFormat}*${visibleNotFormat})?`),
  });

/** A TCP port number, 0-65535, as a URL carries it. */
export const PORT = "(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])";

/**
 * An http(s) URL as RFC 3986 spells it (the services' `uriSyntaxProblem`), with the given host
 * syntax: optional port, path, query and (when `fragment`) fragment.
 */
export function httpUrlPattern(host: string, options: { allowHttp: boolean; fragment: boolean }): string {
  const tail = `(?:${URI_PCHAR}|[/?])*`;
  const fragment = options.fragment ? `(?:#${tail})?` : "";
  return `^[Hh][Tt][Tt][Pp][Ss]${options.allowHttp ? "?" : ""}://${host}(?::${PORT})?(?:/(?:${URI_PCHAR}|/)*)?(?:\\?${tail})?${fragment}$`;
}
