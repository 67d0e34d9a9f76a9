import { counterIn, type Registry } from "@svc/platform/telemetry";

/** identity_sign_in_throttled_total{by}: sign-in attempts refused by the throttle, per account or per client address. */
export function countThrottledSignIns(registry: Registry | undefined): ((by: "account" | "address") => void) | undefined {
  if (!registry) return undefined;
  const throttled = counterIn(
    registry,
    "identity_sign_in_throttled_total",
    "Sign-in attempts refused by the throttle, by what was throttled (account or address).",
    ["by"],
  );
  for (const by of ["account", "address"] as const) throttled.inc({ by }, 0);
  return (by) => throttled.inc({ by });
}
