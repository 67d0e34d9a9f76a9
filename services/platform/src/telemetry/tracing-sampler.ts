import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from "@opentelemetry/sdk-trace";

/**
 * The sampler OTEL_TRACES_SAMPLER (and OTEL_TRACES_SAMPLER_ARG, a ratio from 0 to 1) name, as the
 * OpenTelemetry specification defines them; nothing (the SDK default, parentbased_always_on) when
 * unset or unknown.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): { sampler?: Sampler } {
  const ratioArgument = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  const ratio = Number.isFinite(ratioArgument) && ratioArgument >= 0 && ratioArgument <= 1 ? ratioArgument : 1;
  const samplers: Record<string, () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => new TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
  };
  const make = samplers[env.OTEL_TRACES_SAMPLER?.trim() ?? ""];
  return make ? { sampler: make() } : {};
}
