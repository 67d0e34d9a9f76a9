import { describe, expect, it } from "vitest";
import { captureEventContext, withEventContext } from "./event-context.ts";
import { currentRequestId, withRequestId } from "./request-context.ts";

describe("event context", () => {
  it("captures the current request id and restores it for work done later", async () => {
    const headers = withRequestId("req-123", () => captureEventContext());
    expect(headers).toEqual({ "x-request-id": "req-123" });
    expect(currentRequestId()).toBeUndefined();
    const seen = await withEventContext(headers, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentRequestId();
    });
    expect(seen).toBe("req-123");
  });

  it("captures nothing outside a request, and ignores a request id that is not acceptable", () => {
    expect(captureEventContext()).toEqual({});
    expect(withEventContext({ "x-request-id": "bad id\n" }, () => currentRequestId())).toBeUndefined();
    expect(withEventContext(null, () => currentRequestId())).toBeUndefined();
  });
});
