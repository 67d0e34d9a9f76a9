import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

/**
 * Sends a unary call once more when the server refused it unprocessed: an HTTP/2 stream reset
 * with REFUSED_STREAM, which by RFC 9113 §8.7 guarantees that no application processing happened,
 * so repeating it is safe even for a write. gRPC clients do the same ("transparent retry").
 *
 * It happens in rollouts: a stream the caller opens on a session just as the server starts to
 * drain can be refused when that session finally closes (seen on the local Kubernetes cluster:
 * 2 meeting creations in 7,000 failed with `[internal] Stream closed with error code
 * NGHTTP2_REFUSED_STREAM` during a `helm upgrade`). The retry runs on a new session, which the
 * session manager opens to a replica that is not stopping.
 *
 * Only unary calls (their one message is still in hand) and only once. Connect-node reports a
 * refusal as Internal; a second one is an outage of that service, so it becomes Unavailable (the
 * gateway answers 503 with Retry-After rather than 500).
 */
export const retryRefusedStream: Interceptor = (next) => async (request) => {
  if (request.stream) return next(request);
  try {
    return await next(request);
  } catch (error) {
    if (!refusedUnprocessed(error)) throw error;
  }
  try {
    return await next(request);
  } catch (error) {
    if (refusedUnprocessed(error)) throw new ConnectError("the service refused the call twice (it is stopping)", Code.Unavailable, undefined, undefined, error);
    throw error;
  }
};

/** Whether a call failed because the server refused its stream before processing it. */
export function refusedUnprocessed(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if ((cause as NodeJS.ErrnoException).code === "ERR_HTTP2_STREAM_ERROR" && cause.message.endsWith("NGHTTP2_REFUSED_STREAM")) return true;
  }
  return false;
}
