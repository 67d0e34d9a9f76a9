import { Code, ConnectError } from "@connectrpc/connect";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { errorMetadata } from "@svc/platform/contract";

/**
 * Spends one point of `key`'s budget, or refuses with RESOURCE_EXHAUSTED and how long to wait
 * (the gateway makes it 429 with Retry-After). A limiter's own failure (Redis) is thrown as is.
 */
export async function spend(bucket: RateLimiterAbstract, key: string, message: string): Promise<void> {
  try {
    await bucket.consume(key);
  } catch (rejection) {
    if (rejection instanceof Error) throw rejection;
    const retryAfter = Math.ceil(((rejection as { msBeforeNext?: number }).msBeforeNext ?? 1_000) / 1_000);
    throw new ConnectError(message, Code.ResourceExhausted, { [errorMetadata.retryAfter]: String(retryAfter) });
  }
}
