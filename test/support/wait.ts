import { holdStill } from "./hold-still.ts";
/** Polls `condition` until it holds; fails with `message` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, message = "condition not met in time") {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await holdStill(50, "between polls of the condition");
  }
  throw new Error(`${message} (after ${timeoutMs} ms)`);
}
