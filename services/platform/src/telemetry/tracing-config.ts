/**
 * Whether this process exports traces: only when the standard OpenTelemetry variables ask for it
 * (an OTLP endpoint, or OTEL_TRACES_EXPORTER=otlp for the default one; OTLP is the one exporter
 * supported) and OTEL_SDK_DISABLED is not "true". Read by the register hook and by whatever
 * installs tracing-only interceptors, so both agree.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter !== undefined && exporter !== "otlp") return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The module a launcher preloads (`node --import`) so a process traces. */
export const TRACING_REGISTER_MODULE = "@svc/platform/telemetry/register";

/**
 * How a launcher (npm start, the test stack) starts one of our processes: with the tracing hook
 * preloaded and a service name of its own (`svc-<name>` unless OTEL_SERVICE_NAME is given) when
 * tracing is configured, exactly as before otherwise.
 */
export function tracingLaunch(service: string, env: NodeJS.ProcessEnv): { nodeArguments: string[]; env: Record<string, string> } {
  if (!tracingConfigured(env)) return { nodeArguments: [], env: {} };
  return { nodeArguments: [`--import=${TRACING_REGISTER_MODULE}`], env: { OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME ?? `svc-${service}` } };
}

/**
 * What a deployment sets to trace a process: the preload (NODE_OPTIONS) and the standard OTEL_*
 * variables. The tracing hook and the SDK read them, not a process's configuration schema.
 */
export const TRACING_DEPLOYMENT_VARIABLES = [
  "NODE_OPTIONS",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_SERVICE_NAME",
  "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG",
] as const;
