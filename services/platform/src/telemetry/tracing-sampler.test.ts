import { describe, expect, it } from "vitest";
import { samplerFromEnv } from "./tracing-sampler.ts";

describe("samplerFromEnv", () => {
  it("leaves the SDK default when OTEL_TRACES_SAMPLER is unset or unknown", () => {
    expect(samplerFromEnv({})).toEqual({});
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "sometimes" })).toEqual({});
  });

  it("builds the named sampler with the ratio of OTEL_TRACES_SAMPLER_ARG", () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "always_on" }).sampler?.toString()).toBe("AlwaysOnSampler");
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }).sampler?.toString()).toContain(
      "TraceIdRatioBased{0.25}",
    );
  });

  it("takes a ratio outside 0..1 (or not a number) as 1", () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "7" }).sampler?.toString()).toBe("TraceIdRatioBased{1}");
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "lots" }).sampler?.toString()).toBe("TraceIdRatioBased{1}");
  });
});
