/**
 * The tracing entry point, loaded before the application with
 * `node --import @svc/platform/telemetry/register`. It does nothing unless the standard OTEL_*
 * variables ask for traces (see tracingConfigured): the SDK is then never even loaded.
 */
import { tracingConfigured } from "./tracing-config.ts";

if (tracingConfigured()) {
  const { startTracing } = await import("./tracing-sdk.ts");
  await startTracing();
}
