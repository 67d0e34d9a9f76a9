import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_ENVIRONMENT, SERVICE_NODE_FLAGS } from "@svc/platform";
import { load } from "../bench/load.ts";
import { serviceNames } from "../support/stack.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";

// How every long-running process starts (services/platform/src/process-launch.ts): the test
// stacks start them as `npm start` and the image do, and glibc's dynamic loader, which reads
// GLIBC_TUNABLES, must know each allocator setting (a misspelt one is silently ignored).
/** glibc's dynamic loader, the one Node itself is linked with (`ldd` comes with glibc). */
const dynamicLoader = () => /^\s*(\/\S*\/ld-linux\S*)/m.exec(execFileSync("ldd", [process.execPath], { encoding: "utf8" }))![1]!;

describe("process launch", () => {
  it("names only allocator settings glibc knows, each taking the value given", () => {
    const settings = SERVICE_ENVIRONMENT.GLIBC_TUNABLES!.split(":").map((pair) => pair.split("=") as [string, string]);
    expect(settings.length).toBeGreaterThan(0);
    const listed = execFileSync(dynamicLoader(), ["--list-tunables"], { encoding: "utf8", env: { GLIBC_TUNABLES: SERVICE_ENVIRONMENT.GLIBC_TUNABLES } });
    for (const [name, value] of settings) {
      expect(listed, name).toMatch(new RegExp(`^${name.replaceAll(".", "\\.")}: 0x${Number(value).toString(16)} `, "m"));
    }
  });

  describe("a running stack", () => {
    // At info, for the release's log line.
    const fixture = useStack({ env: { LOG_LEVEL: "info" } });
    beforeAll(() => {});

    it("starts every process with the Node flags and the environment", () => {
      for (const name of serviceNames) {
        const pid = fixture.stack.pid(name)!;
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        expect(argv, name).toEqual(expect.arrayContaining([...SERVICE_NODE_FLAGS]));
        // The environment as the process received it. glibc's loader cuts GLIBC_TUNABLES there in
        // place while parsing it (each ':' becomes a NUL), so each setting is looked for on its own.
        const environment = readFileSync(`/proc/${pid}/environ`, "utf8");
        for (const [variable, value] of Object.entries(SERVICE_ENVIRONMENT)) {
          expect(environment, name).toContain(`\0${variable}=`);
          for (const setting of value.split(":")) expect(environment, `${name}: ${variable}`).toContain(setting);
        }
      }
    });

    // services/platform/src/idle-memory-release.ts: utilization is sampled every 10 s, so 8 s of
    // load make at least one busy sample wherever they fall, and an idle one follows within 20 s.
    it("gives the heap memory of a busy spell back once idle, in one collection", { timeout: 60_000 }, async () => {
      const released = () =>
        fixture.stack
          .logs("gateway")
          .split("\n")
          .filter((line) => line.includes("released unused heap memory"));
      const before = released().length;
      const busy = await load({ url: `${fixture.stack.gatewayUrl}/healthz`, connections: 16, durationSeconds: 8 });
      expect(busy.errors).toBe(0);
      await waitFor(() => released().length > before, 30_000, "the gateway's release after the load");
      const line = JSON.parse(released().at(-1)!) as { rssMbBefore: number; rssMbAfter: number; pauseMs: number };
      expect(line.rssMbAfter).toBeLessThan(line.rssMbBefore);
      await holdStill(11_000, "once per busy spell: the idle samples after it collect nothing more");
      expect(released().length).toBe(before + 1);
    });
  });
});
