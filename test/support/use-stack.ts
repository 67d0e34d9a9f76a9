import { createSvcClient, type SvcClient } from "@svc/client";
import { startStack, type Stack, type StackOptions } from "./stack.ts";
import { useResource } from "./use-resource.ts";

/** The longest a stack with a media server (and a recorder) may take to start, a cold build included. */
const MEDIA_START_TIMEOUT_MS = 900_000;

export interface StackFixture {
  /** The running stack (available inside tests and hooks, after the file's beforeAll). */
  readonly stack: Stack;
  /** A typed client of the stack's REST API (@svc/client), as `token` (an API key or OAuth access token), or anonymous. */
  client(token?: string): SvcClient;
}

/**
 * Starts a stack for the test file (beforeAll) and stops it after (afterAll): the one place that
 * owns a file's start and stop. Call it at the top level of the file (or of a describe, for a stack
 * of that block's own). Options that need something started first (a receiver's address) are
 * given as a function, called in the beforeAll: register that other thing's beforeAll before this.
 */
export function useStack(options: StackOptions | (() => StackOptions) = {}): StackFixture {
  const stack = useResource(
    "the stack",
    () => startStack(typeof options === "function" ? options() : options),
    (running) => running.stop(),
    // A stack with a media server or a recorder may build it first where the cache is cold
    // (startStack builds before anything starts): minutes, not the configured hook timeout.
    typeof options === "function" || options.media || options.recording ? MEDIA_START_TIMEOUT_MS : undefined,
  );
  return {
    get stack() {
      return stack();
    },
    client: (token) => createSvcClient({ origin: stack().gatewayUrl, ...(token ? { token } : {}) }),
  };
}

/**
 * The data of a @svc/client call that must succeed: for the steps a test takes to reach what it is
 * about (create a meeting, end it), where any other answer is a broken setup, not a finding.
 */
export async function succeeded<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  // A plain error, not expect(): a setup step is not one of the test's assertions.
  if (!response.ok || data === undefined) throw new Error(`${response.url} answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}
