import { createSvcClient, type SvcClient } from "@svc/client";
import { afterAll, beforeAll } from "vitest";
import { startStack, type Stack, type StackOptions } from "./stack.ts";

export interface StackFixture {
  /** The running stack (available inside tests and hooks, after the file's beforeAll). */
  readonly stack: Stack;
  /** A typed client of the stack's REST API (@svc/client), as `token` (an API key or OAuth access token), or anonymous. */
  client(token?: string): SvcClient;
}

/**
 * Starts a stack for the test file (beforeAll) and stops it after (afterAll): the one place that
 * owns a file's start and stop. Call it at the top level of the file.
 */
export function useStack(options: StackOptions = {}): StackFixture {
  let running: Stack | undefined;
  beforeAll(async () => {
    running = await startStack(options);
  });
  afterAll(async () => running?.stop());
  const stack = () => {
    if (!running) throw new Error("the stack is not started: use it inside a test or hook, after useStack's beforeAll");
    return running;
  };
  return {
    get stack() {
      return stack();
    },
    client: (token) => createSvcClient({ origin: stack().gatewayUrl, ...(token ? { token } : {}) }),
  };
}
