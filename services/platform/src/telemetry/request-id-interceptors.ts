import type { Interceptor } from "@connectrpc/connect";
import { currentRequestId, isAcceptableRequestId, REQUEST_ID_HEADER, withRequestId } from "./request-context.ts";

/** Forwards the request id of the work in progress on every outgoing call. */
export const requestIdClientInterceptor: Interceptor = (next) => (request) => {
  const requestId = currentRequestId();
  if (requestId) request.header.set(REQUEST_ID_HEADER, requestId);
  return next(request);
};

/** Handles a call as part of the caller's request, so every log line of the handler names it. */
export const requestIdServerInterceptor: Interceptor = (next) => (request) => {
  const requestId = request.header.get(REQUEST_ID_HEADER);
  return isAcceptableRequestId(requestId) ? withRequestId(requestId, () => next(request)) : next(request);
};
