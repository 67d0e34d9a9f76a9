import { describe, expect, it } from "vitest";
import { createBatcher } from "./batcher.ts";

describe("batcher", () => {
  it("flushes items added in the same turn together, and items added during a flush in the next batch", async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = createBatcher(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    }, 100);
    const first = [1, 2, 3].map((n) => batcher.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((n) => batcher.add(n));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toEqual([[1, 2, 3]]); // 4 and 5 wait for the running flush
    release();
    await Promise.all([...first, ...second]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("caps a batch at maxBatch", async () => {
    const sizes: number[] = [];
    const batcher = createBatcher(async (items: number[]) => void sizes.push(items.length), 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.add(n)));
    expect(sizes).toEqual([2, 2, 1]);
  });

  it("rejects every item of a failed batch, and later batches still flush", async () => {
    let fail = true;
    const batcher = createBatcher(async () => {
      if (fail) throw new Error("database down");
    }, 10);
    const results = await Promise.allSettled([batcher.add(1), batcher.add(2)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    await expect(batcher.add(3)).resolves.toBeUndefined();
  });
});
