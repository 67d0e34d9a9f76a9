import type { Request, Response } from "express";

/**
 * The Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header) travels to the owning
 * service as `idempotency-key` metadata; the service decides (stores, replays, refuses). A replay
 * comes back with `idempotent-replayed: true`, passed on as the `Idempotent-Replayed` header.
 */
export function idempotencyCall(req: Request, res: Response) {
  const key = req.get("idempotency-key");
  return {
    headers: key === undefined ? {} : { "idempotency-key": key },
    onHeader: (headers: Headers) => {
      if (headers.get("idempotent-replayed") === "true") res.set("Idempotent-Replayed", "true");
    },
  };
}
