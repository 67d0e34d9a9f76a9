import { afterAll, beforeAll } from "vitest";

/**
 * Something a test file (or a describe block) starts before its tests and closes after them: the
 * stack, a receiver, a database. Call it at the top level of the file or block; the answer reads
 * the started resource, inside tests and hooks registered after this call (before that it throws,
 * naming `what`). Resources are started in the order of their calls and closed in reverse.
 * `startTimeoutMs` replaces the configured hook timeout for the start (a first build can be in it).
 */
export function useResource<T>(what: string, start: () => Promise<T>, close: (resource: T) => Promise<unknown>, startTimeoutMs?: number): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    if (started !== undefined) await close(started);
  });
  return () => {
    if (started === undefined) throw new Error(`${what} is not started: use it inside a test or hook, after the beforeAll that starts it`);
    return started;
  };
}
