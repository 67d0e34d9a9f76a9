import { pino, type Logger } from "pino";
import { logCorrelationFields } from "./telemetry/log-correlation.ts";

export type { Logger };

/**
 * Structured JSON logs. Anything that could carry a credential is redacted by path, so a secret
 * never reaches a log even when a whole request or record is logged by mistake. Every line names
 * the request it belongs to (and the trace, when tracing is on): see logCorrelationFields.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    mixin: logCorrelationFields,
    redact: {
      paths: [
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
      ],
      censor: "[redacted]",
    },
  });
}
