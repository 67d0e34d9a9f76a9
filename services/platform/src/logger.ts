import { pino, type Logger } from "pino";
import { logCorrelationFields } from "./telemetry/log-correlation.ts";

export type { Logger };

/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

/**
 * Every log field that may carry a credential, by path: redacted in every service's log lines.
 * A logger that writes a fixed shape (the gateway's access line) may narrow it to the paths its
 * shape has, since redacting by wildcard costs on every line.
 */
export const REDACTED_PATHS: readonly string[] = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "password",
  "*.password",
  "secret",
  "*.secret",
  "clientSecret",
  "*.clientSecret",
  "client_secret",
  "*.client_secret",
  "key",
  "*.key",
  "token",
  "*.token",
  "refresh_token",
  "*.refresh_token",
  "access_token",
  "*.access_token",
];

/**
 * Where every log line goes: standard output, written synchronously.
 *
 * Not pino's default (an asynchronous sonic-boom with an exit-time flush): sonic-boom 4 retries a
 * final flush that fails with EPIPE forever, 100 ms at a time, so once the reader of stdout was gone
 * (a supervisor or log shim that exited, a broken container pipe), `process.exit()` never returned
 * and the process ignored every later signal. A synchronous destination has nothing to flush at
 * exit. When stdout is gone, logging ends and the process goes on: pino's destination stops at
 * EPIPE, but the other ways a write fails once the reader is gone (ECONNRESET when stdout is a
 * socket, as Node's child-process pipes are) would reach no listener and crash the process from
 * inside a log call; a logger has nowhere to report its own failure, so it stops writing.
 */
export function logDestination(fd = 1) {
  const destination = pino.destination({ dest: fd, sync: true });
  destination.on("error", () => {
    destination.write = () => true;
  });
  return destination;
}

/**
 * Structured JSON logs. Anything that could carry a credential is redacted by path, so a secret
 * never reaches a log even when a whole request or record is logged by mistake. Every line names
 * the request it belongs to (and the trace, when tracing is on): see logCorrelationFields.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      mixin: logCorrelationFields,
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
    },
    logDestination(),
  );
}
