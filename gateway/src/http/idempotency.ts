import type { Request, Response } from "express";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, readIdempotencyKey } from "@svc/platform";

/**
 * The Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header) travels to the owning
 * service as `idempotency-key` metadata; the service decides (stores, replays, refuses). Its value
 * is checked here first (readIdempotencyKey, the service's own rule): gRPC metadata carries only
 * printable ASCII, so a key with any other character is refused with 400 before the call. A replay
 * comes back with `idempotent-replayed: true`, passed on as the `Idempotent-Replayed` header.
 */
export function idempotencyCall(req: Request, res: Response) {
  const key = req.get(IDEMPOTENCY_KEY_HEADER);
  return {
    headers: key === undefined ? {} : { [IDEMPOTENCY_KEY_HEADER]: readIdempotencyKey(key) },
    onHeader: (headers: Headers) => {
      if (headers.get(IDEMPOTENT_REPLAYED_HEADER) === "true") res.set("Idempotent-Replayed", "true");
    },
  };
}
