import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { RequestCheck, requireUuid } from "./request-check.ts";

describe("RequestCheck", () => {
  it("names every problem in one INVALID_ARGUMENT, in the order found, skipping the rules that passed", () => {
    const check = new RequestCheck().add("title is required", undefined, "").add("end must be after start");
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual(["title is required", "end must be after start"]);
    let thrown: unknown;
    try {
      check.done();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConnectError);
    expect((thrown as ConnectError).code).toBe(Code.InvalidArgument);
    expect((thrown as ConnectError).rawMessage).toBe("title is required; end must be after start");
  });

  it("does nothing when every rule passed", () => {
    const check = new RequestCheck().add(undefined);
    expect(check.ok).toBe(true);
    expect(() => check.done()).not.toThrow();
  });

  it("reads a UUID field lower-cased, and names the field when it is not one", () => {
    const check = new RequestCheck();
    expect(check.uuid("webhookId", "8F14E45F-CEEA-467A-9575-6E2B7C1D5A2B")).toBe("8f14e45f-ceea-467a-9575-6e2b7c1d5a2b");
    expect(check.ok).toBe(true);
    check.uuid("deliveryId", "not-a-uuid");
    expect(check.problems).toEqual(["deliveryId must be a UUID"]);
  });

  it("requireUuid answers one id field or refuses it at once", () => {
    expect(requireUuid("clientId", "8F14E45F-CEEA-467A-9575-6E2B7C1D5A2B")).toBe("8f14e45f-ceea-467a-9575-6e2b7c1d5a2b");
    expect(() => requireUuid("clientId", "x")).toThrow("clientId must be a UUID");
  });
});
