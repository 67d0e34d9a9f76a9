import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { errorMetadata } from "@svc/platform/contract";
import { fromConnectError } from "./errors.js";

describe("fromConnectError", () => {
  it("answers an unreachable service and one past its deadline alike: 503 with Retry-After, no detail", () => {
    for (const code of [Code.Unavailable, Code.DeadlineExceeded]) {
      const error = fromConnectError(new ConnectError("connect ECONNREFUSED 127.0.0.1:50053", code));
      expect(error.status).toBe(503);
      expect(error.message).toBe("Service temporarily unavailable");
      expect(error.headers["Retry-After"]).toBe("1");
    }
  });

  it("keeps the reason of a 503 the service chose, with its own Retry-After", () => {
    const metadata = new Headers({ [errorMetadata.retryAfter]: "30" });
    const error = fromConnectError(new ConnectError("No recording capacity", Code.Unavailable, metadata));
    expect([error.status, error.message, error.headers["Retry-After"]]).toEqual([503, "No recording capacity", "30"]);
  });

  it("hides anything unexpected behind the generic 500", () => {
    const error = fromConnectError(new ConnectError("relation meetings does not exist", Code.Internal));
    expect([error.status, error.message]).toEqual([500, "Internal server error"]);
  });
});
