import { describe, expect, it } from "vitest";
import { eventually } from "./eventually.ts";

describe("eventually", () => {
  it("answers what run answers once it stops throwing", async () => {
    let calls = 0;
    const value = await eventually(
      async () => {
        calls += 1;
        if (calls < 3) throw new Error(`not yet (${calls})`);
        return "ready";
      },
      5_000,
      1,
    );
    expect(value).toBe("ready");
    expect(calls).toBe(3);
  });

  it("throws run's last error once the time is up", async () => {
    let calls = 0;
    const error = await eventually(
      async () => {
        calls += 1;
        throw new Error(`failure ${calls}`);
      },
      30,
      5,
    ).catch((thrown: unknown) => thrown);
    expect(calls).toBeGreaterThan(1);
    expect(error).toEqual(new Error(`failure ${calls}`));
  });
});
