import { describe, expect, it } from "vitest";
import { TRACING_REGISTER_MODULE, tracingConfigured, tracingLaunch } from "./tracing-config.ts";

describe("tracingConfigured", () => {
  it("is off without OTEL_* variables, and on with an OTLP endpoint or the otlp traces exporter", () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
  });

  it("is off when OTEL_SDK_DISABLED is true or the traces exporter is none (or one not supported), whatever else is set", () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "console" })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "false" })).toBe(true);
  });
});

describe("tracingLaunch", () => {
  it("adds nothing when tracing is off", () => {
    expect(tracingLaunch("meeting", {})).toEqual({ nodeArguments: [], env: {} });
  });

  it("preloads the register hook and names the process, keeping a service name that was given", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingLaunch("meeting", env)).toEqual({ nodeArguments: [`--import=${TRACING_REGISTER_MODULE}`], env: { OTEL_SERVICE_NAME: "svc-meeting" } });
    expect(tracingLaunch("meeting", { ...env, OTEL_SERVICE_NAME: "mine" }).env).toEqual({ OTEL_SERVICE_NAME: "mine" });
  });
});
