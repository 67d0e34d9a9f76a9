import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

describe("configuration is validated at start", () => {
  it.each(["identity", "meeting", "webhook"])("%s stops with one line naming DATABASE_URL when it is nonsense", (service) => {
    const result = spawnSync(process.execPath, ["--conditions=source", "src/main.ts"], {
      cwd: path.join(root, "services", service),
      env: { PATH: process.env.PATH, DATABASE_URL: "nonsense" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).not.toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${service}: invalid configuration: DATABASE_URL: `));
  });

  it("the gateway stops naming PUBLIC_URL when it is not a URL", () => {
    const result = spawnSync(process.execPath, ["--conditions=source", "src/main.ts"], {
      cwd: path.join(root, "gateway"),
      env: { PATH: process.env.PATH, PUBLIC_URL: "not a url" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr.trim()).toMatch(/^gateway: invalid configuration: PUBLIC_URL: /);
  });

  it.each([
    ["gateway", "gateway"],
    ["identity", "services/identity"],
  ])("%s refuses to start with an http PUBLIC_URL on a host that is not loopback, with one clear line", (service, dir) => {
    const result = spawnSync(process.execPath, ["--conditions=source", "src/main.ts"], {
      cwd: path.join(root, dir),
      env: { PATH: process.env.PATH, PUBLIC_URL: "http://meet.example.com", DATABASE_URL: "postgres://svc:svc@127.0.0.1:1/svc" },
      encoding: "utf8",
      // A process that accepted the URL would start and keep running: stopped, it fails the test.
      timeout: 20_000,
      killSignal: "SIGKILL",
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr.trim()).toMatch(new RegExp(`^${service}: invalid configuration: PUBLIC_URL: must be https://`));
  });
});
