import { holdStill } from "./hold-still.ts";

/** Polls `condition` until it holds or `timeoutMs` passes; says which (for a test that acts on either). */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await holdStill(pollMs, "between polls of the condition");
  }
}

/** Polls `condition` until it holds; fails with `message` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, message = "condition not met in time") {
  if (!(await waitUntil(condition, timeoutMs))) throw new Error(`${message} (after ${timeoutMs} ms)`);
}

/**
 * What `promise` settles to within `ms`, or "pending": for a test that shows a call waits (on a
 * lock, say) or does not. The timer is cleared once the promise settles.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<"pending">((resolve) => (timer = setTimeout(() => resolve("pending"), ms)));
  try {
    return await Promise.race([promise, pending]);
  } finally {
    clearTimeout(timer);
  }
}
