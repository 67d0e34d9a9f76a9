import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { idempotencyKeyMaxLength } from "./contract/api-rules.ts";

// The Idempotency-Key header's rule, read by the gateway (before it forwards the header as gRPC
// metadata) and by the services (db/idempotency.ts stores the keys): in the core, which reaches
// no database, so that the gateway can read it.

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
/** Response header set when the answer is a replay of the first one. */
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
const MAX_KEY_LENGTH = idempotencyKeyMaxLength;

/**
 * The caller's key from the request metadata, or undefined without one. The draft sends it as a
 * structured-field string (`"abc"`); a bare token is accepted too. 1-255 visible ASCII characters.
 */
export function idempotencyKeyOf(context: HandlerContext): string | undefined {
  const raw = context.requestHeader.get(IDEMPOTENCY_KEY_HEADER);
  return raw === null ? undefined : readIdempotencyKey(raw);
}

/**
 * An Idempotency-Key header's value as the key it names, or INVALID_ARGUMENT. The gateway reads it
 * too, before it forwards the header as gRPC metadata (which carries printable ASCII only).
 */
export function readIdempotencyKey(raw: string): string {
  const key = /^"(.*)"$/.exec(raw.trim())?.[1] ?? raw.trim();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ConnectError(`Idempotency-Key must be 1-${MAX_KEY_LENGTH} visible ASCII characters`, Code.InvalidArgument);
  }
  return key;
}
