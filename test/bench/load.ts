import http from "node:http";
import autocannon from "autocannon";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
  /** The first failure's message, so a row with errors says what went wrong (loop only). */
  firstError?: string;
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST" | "DELETE";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Per-request body factory, for requests that must differ (for example refresh tokens). */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
  /** Inspects each response; return false to count it as an error. */
  onResponse?: (status: number, body: string) => boolean;
}

/** One autocannon run; any non-2xx or transport error counts as an error. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  let rejected = 0;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.durationSeconds,
    requests:
      options.setupRequest || options.onResponse
        ? [
            // autocannon calls any setupRequest or onResponse key present, so an absent one must be left out.
            {
              ...(options.setupRequest ? { setupRequest: options.setupRequest } : {}),
              ...(options.onResponse
                ? {
                    onResponse: (status: number, body: string) => {
                      if (!options.onResponse!(status, body)) rejected++;
                    },
                  }
                : {}),
            } as autocannon.Request,
          ]
        : undefined,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx + rejected,
    requests: result.requests.total,
  };
}

/** Runs `work` from `concurrency` loops for `durationSeconds`, timing each call. */
export async function loop(concurrency: number, durationSeconds: number, work: () => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const deadline = performance.now() + durationSeconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        try {
          await work();
          latencies.push(performance.now() - started);
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  return {
    requestsPerSecond: latencies.length / durationSeconds,
    ...percentiles(latencies),
    errors,
    requests: latencies.length,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

export function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
  return { p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) };
}

/**
 * A lean HTTP/1.1 client on `connections` kept-alive sockets, for load loops whose requests each
 * differ (autocannon repeats one): the load generator shares the machine with what it measures,
 * and `fetch` costs it several times more CPU per request than `node:http`.
 */
export function keepAliveClient(origin: string, connections: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return {
    /** Sends the request and reads the whole answer; resolves with its status. */
    request(method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
      return new Promise((resolve, reject) => {
        const request = http.request(new URL(path, origin), { method, agent, headers: { ...headers, "content-length": "0" } }, (response) => {
          response.resume();
          response.once("end", () => resolve(response.statusCode ?? 0));
          response.once("error", reject);
        });
        request.once("error", reject);
        request.end();
      });
    },
    close: () => agent.destroy(),
  };
}
