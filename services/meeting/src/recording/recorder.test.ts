import { EgressInfo, EgressStatus } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { outcomeOf } from "./recorder.ts";

const failureOf = (info: EgressInfo) => {
  const outcome = outcomeOf(info);
  if (outcome.state !== "failed") throw new Error(`expected a failure, got ${outcome.state}`);
  return outcome;
};

describe("a recorder's outcome", () => {
  it("gives the tenant a stable code, and keeps the recorder's own text for our logs", () => {
    const raw = "pipeline error: could not link audio (secret abc, /var/lib/egress/tmp)";
    expect(failureOf(new EgressInfo({ status: EgressStatus.EGRESS_FAILED, error: raw }))).toEqual({ state: "failed", code: "recorder_failed", detail: raw });
    expect(failureOf(new EgressInfo({ status: EgressStatus.EGRESS_ABORTED, error: "Start signal not received" }))).toEqual({
      state: "failed",
      code: "recorder_aborted",
      detail: "Start signal not received",
    });
  });

  it("tells a failed upload to the storage (Egress's 'S3 upload failed: …', alone or among other errors) from the rest", () => {
    const upload = "S3 upload failed: AccessDenied: Access Denied\n\tstatus code: 403, request id: , host id: ";
    expect(failureOf(new EgressInfo({ status: EgressStatus.EGRESS_FAILED, error: upload })).code).toBe("storage_failed");
    expect(failureOf(new EgressInfo({ status: EgressStatus.EGRESS_FAILED, error: `pipeline frozen\n${upload}` })).code).toBe("storage_failed");
    expect(failureOf(new EgressInfo({ status: EgressStatus.EGRESS_FAILED, error: "the upload failed: no" })).code).toBe("recorder_failed");
  });

  it("a run that ended without a file recorded nothing", () => {
    for (const status of [EgressStatus.EGRESS_COMPLETE, EgressStatus.EGRESS_LIMIT_REACHED])
      expect(failureOf(new EgressInfo({ status })).code).toBe("nothing_recorded");
  });
});
