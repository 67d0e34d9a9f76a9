/**
 * URIs as RFC 3986 spells them, for the URLs the API stores and calls (webhook targets, OAuth
 * redirect URIs). The WHATWG parser that Node's `URL` implements accepts more (Unicode, spaces,
 * backslashes, a second `#`) and quietly rewrites it, so what is stored and called could differ from
 * what was checked: these rules refuse it first. The OpenAPI document spells the same rules as
 * patterns from the same pieces.
 */

/** What a path segment, a query or a fragment may hold besides `/` and `?` (RFC 3986 §3.3: pchar). */
export const URI_PCHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})";

const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/** Why `value` is not an RFC 3986 URI (a sentence to follow the field's name), or undefined. */
export function uriSyntaxProblem(value: string): string | undefined {
  if (!URI_CHARACTERS.test(value) || /%(?![0-9A-Fa-f]{2})/.test(value)) {
    return "must be an RFC 3986 URI: ASCII letters, digits and URI punctuation only (an internationalised host in its punycode form)";
  }
  const fragment = value.indexOf("#");
  if (fragment !== -1 && value.includes("#", fragment + 1)) return "must be an RFC 3986 URI: `#` may appear once, where the fragment starts";
  const afterAuthority = value.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, "");
  if (/[[\]]/.test(afterAuthority)) return "must be an RFC 3986 URI: `[` and `]` only around an IPv6 address";
  return undefined;
}
