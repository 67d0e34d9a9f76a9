/**
 * The error contract between the services and the gateway: the metadata keys by which a service
 * says how a refusal reads over HTTP, beyond what its gRPC code says. A service sets them on the
 * ConnectError it throws; the gateway's one mapping (gateway/src/http/errors.ts) reads them.
 */
export const errorMetadata = {
  /** PERMISSION_DENIED for a missing OAuth scope: the scope, for `WWW-Authenticate: ... error="insufficient_scope"`. */
  requiredScope: "x-required-scope",
  /**
   * FAILED_PRECONDITION that will never change (a meeting ended or cancelled, for joining): `"true"`
   * makes it 410 Gone. Also a response header of a successful read of a cancelled meeting's records:
   * the gateway answers 410 with the body a 200 would carry.
   */
  gone: "x-gone",
  /** Which Idempotency-Key refusal: `"mismatch"` (422) or `"in-progress"` (409). */
  idempotency: "x-idempotency",
  /** RESOURCE_EXHAUSTED, or UNAVAILABLE refused on purpose (no recording capacity): whole seconds to wait, sent as `Retry-After`. */
  retryAfter: "retry-after",
  /** OUT_OF_RANGE for a byte range outside a file: the file's size, for `Content-Range: bytes *\/<size>` (416). */
  fileSize: "x-size",
} as const;
