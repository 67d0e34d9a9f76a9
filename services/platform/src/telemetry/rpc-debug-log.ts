import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { Logger } from "../logger.ts";

/**
 * One debug line per RPC a server handles (procedure, outcome, duration): with LOG_LEVEL=debug a
 * request can be followed through every service by its requestId. startServer installs it only
 * at the debug level; the check here keeps it right wherever else it is installed.
 */
export function rpcDebugLog(logger: Logger): Interceptor {
  return (next) => async (request) => {
    if (!logger.isLevelEnabled("debug")) return next(request);
    const started = performance.now();
    const procedure = `${request.service.typeName}/${request.method.name}`;
    const done = (code: string) => logger.debug({ procedure, code, durationMs: Math.round(performance.now() - started) }, "rpc handled");
    try {
      const response = await next(request);
      done("ok");
      return response;
    } catch (error) {
      done(codeToString(ConnectError.from(error).code));
      throw error;
    }
  };
}
