import { createLogger } from "@svc/platform";
import { describe, expect, it } from "vitest";
import { createLastUsedRecorder } from "./last-used-recorder.ts";

const logger = createLogger("test", "silent");

function setUp(write: (uses: Map<string, Date>) => Promise<void>) {
  let now = 1_700_000_000_000;
  const recorder = createLastUsedRecorder({ write, minIntervalMs: 60_000, flushIntervalMs: 3_600_000, logger, now: () => now });
  return { recorder, advance: (ms: number) => (now += ms) };
}

describe("last-used recording", () => {
  it("writes many uses of many keys as one batch", async () => {
    const batches: Map<string, Date>[] = [];
    const { recorder } = setUp(async (uses) => void batches.push(uses));
    for (let i = 0; i < 100; i += 1) recorder.record(`key-${i % 3}`);
    await recorder.flush();
    expect(batches).toHaveLength(1);
    expect([...batches[0]!.keys()].sort()).toEqual(["key-0", "key-1", "key-2"]);
  });

  it("notes a key at most once a minute", async () => {
    const batches: Map<string, Date>[] = [];
    const { recorder, advance } = setUp(async (uses) => void batches.push(uses));
    recorder.record("key");
    await recorder.flush();
    advance(30_000);
    recorder.record("key");
    await recorder.flush();
    expect(batches).toHaveLength(1);
    advance(31_000);
    recorder.record("key");
    await recorder.flush();
    expect(batches).toHaveLength(2);
  });

  it("does not write when nothing was used", async () => {
    let writes = 0;
    const { recorder } = setUp(async () => void (writes += 1));
    await recorder.flush();
    await recorder.close();
    expect(writes).toBe(0);
  });

  it("keeps a failed batch and writes it with the next one", async () => {
    const batches: string[][] = [];
    let fail = true;
    const { recorder } = setUp(async (uses) => {
      if (fail) throw new Error("database down");
      batches.push([...uses.keys()].sort());
    });
    recorder.record("a");
    await recorder.flush();
    fail = false;
    recorder.record("b");
    await recorder.close();
    expect(batches).toEqual([["a", "b"]]);
  });
});
