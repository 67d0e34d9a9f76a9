import { EgressInfo, EgressStatus } from "livekit-server-sdk";
import { describe, expect, it } from "vitest";
import { outcomeOf } from "./recorder.ts";

describe("a recorder's outcome", () => {
  it("tells the tenant what happened in our words, and keeps the recorder's own text for our logs", () => {
    const raw = "S3 upload failed: AccessDenied for key recordings/abc.mp4 (bucket svc-prod, /var/lib/egress/tmp)";
    for (const status of [EgressStatus.EGRESS_FAILED, EgressStatus.EGRESS_ABORTED]) {
      const outcome = outcomeOf(new EgressInfo({ status, error: raw }));
      expect(outcome.state).toBe("failed");
      if (outcome.state !== "failed") continue;
      expect(outcome.error).not.toContain("AccessDenied");
      expect(outcome.error).not.toContain("svc-prod");
      expect(outcome.error).toMatch(/^The recorder /);
      expect(outcome.detail).toBe(raw);
    }
  });
});
