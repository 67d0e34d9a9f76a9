// The image scripts/build-images makes without a container daemon must be the image
// deploy/docker/Dockerfile describes, on what matters to the chart and to operators: the user,
// the entry point and command, the environment, the working directory, the exposed ports, the
// Node version, and the list of files in the app folder. The Dockerfile is read here on its own
// (plain text, not scripts/images/dockerfile-config.ts), and the app folder is rebuilt here the
// way the Dockerfile's build stage does it: the build context its ignore file admits, then
// `scripts/build-production /out`.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerfile, root } from "./chart.ts";

const execFileAsync = promisify(execFile);
const run = (command: string, args: string[], cwd = root) =>
  execFileAsync(command, args, { cwd, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NICE: "nice -n 10" } }).then((result) => result.stdout);

/** What the Dockerfile's final stage declares, read line by line. */
function finalStage() {
  const lines = readFileSync(dockerfile, "utf8")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const args = new Map(lines.filter((line) => line.startsWith("ARG ")).map((line) => line.slice(4).split("=", 2) as [string, string]));
  const stage = lines.slice(lines.map((line) => line.startsWith("FROM ")).lastIndexOf(true));
  const last = (keyword: string) =>
    stage
      .filter((line) => line.startsWith(`${keyword} `))
      .at(-1)
      ?.slice(keyword.length + 1);
  const env: Record<string, string> = {};
  for (const line of stage.filter((l) => l.startsWith("ENV "))) {
    for (const match of line.slice(4).matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[match[1]!] = match[2]!.replace(/^"|"$/g, "");
  }
  const from = stage[0]!.slice(5).replace(/\$\{(\w+)\}/g, (_, name: string) => args.get(name) ?? "");
  return {
    from,
    user: last("USER"),
    workdir: last("WORKDIR"),
    cmd: last("CMD") ? (JSON.parse(last("CMD")!) as string[]) : undefined,
    entrypoint: last("ENTRYPOINT") ? (JSON.parse(last("ENTRYPOINT")!) as string[]) : undefined,
    env,
    exposed: stage
      .filter((line) => line.startsWith("EXPOSE "))
      .flatMap((line) => line.slice(7).split(/\s+/))
      .map((port) => (port.includes("/") ? port : `${port}/tcp`)),
    // COPY --from=build /out /app: the folder the build stage's build-production wrote.
    appCopy: stage
      .find((line) => /^COPY --from=\w+ \S+ \S+$/.test(line))
      ?.split(" ")
      .slice(2),
  };
}

interface ImageConfig {
  config: { User?: string; WorkingDir?: string; Env?: string[]; Cmd?: string[]; Entrypoint?: string[]; ExposedPorts?: Record<string, object> };
  rootfs: { diff_ids: string[] };
}

describe("the image scripts/build-images makes agrees with deploy/docker/Dockerfile", () => {
  const declared = finalStage();
  let scratch: string;
  let config: ImageConfig;
  let manifest: { Config: string; RepoTags: string[]; Layers: string[] };
  /** Every layer's file list, lowest first. */
  let layers: string[][];
  let extracted: string;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "image-test-"));
    const archive = (await run("bash", ["scripts/build-images", "--tag", "image-test", "--out", path.join(scratch, "out")])).trim();
    extracted = path.join(scratch, "archive");
    mkdirSync(extracted);
    await run("tar", ["-xf", archive, "-C", extracted]);
    manifest = (JSON.parse(readFileSync(path.join(extracted, "manifest.json"), "utf8")) as (typeof manifest)[])[0]!;
    config = JSON.parse(readFileSync(path.join(extracted, manifest.Config), "utf8")) as ImageConfig;
    layers = await Promise.all(manifest.Layers.map(async (layer) => (await run("tar", ["-tf", path.join(extracted, layer)])).split("\n").filter(Boolean)));
  }, 900_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is named as asked, and its layers are the ones its configuration lists", () => {
    expect(manifest.RepoTags).toEqual(["localhost/svc:image-test"]);
    expect(config.rootfs.diff_ids).toHaveLength(manifest.Layers.length);
    expect(manifest.Layers.map((layer) => `sha256:${layer.split("/")[0]}`)).toEqual(config.rootfs.diff_ids);
  });

  it("runs as the Dockerfile's user, in its working directory, with its command and entry point", () => {
    expect(declared.user).toBe("1000:1000");
    expect(config.config.User).toBe(declared.user);
    expect(config.config.WorkingDir).toBe(declared.workdir);
    expect(config.config.Cmd).toEqual(declared.cmd);
    expect(config.config.Entrypoint).toEqual(declared.entrypoint);
    expect(Object.keys(config.config.ExposedPorts ?? {}).sort()).toEqual([...declared.exposed].sort());
  });

  it("sets every environment variable the Dockerfile sets, to the same value, plus only what its base image sets", () => {
    const env = Object.fromEntries((config.config.Env ?? []).map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
    expect(Object.keys(declared.env).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(declared.env)) expect(env[name], name).toBe(value);
    // The official node image's own variables (yarn is not shipped: nothing runs it).
    const nodeVersion = /^node:(\d+\.\d+\.\d+)/.exec(declared.from)?.[1];
    expect(env.NODE_VERSION).toBe(nodeVersion);
    expect(env.PATH).toBe("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    expect(Object.keys(env).sort()).toEqual([...Object.keys(declared.env), "NODE_VERSION", "PATH"].sort());
  });

  it("holds the Dockerfile's Node version, and its user exists", async () => {
    const nodeLayer = manifest.Layers.find((_, i) => layers[i]!.includes("usr/local/bin/node"));
    expect(nodeLayer, "a layer with usr/local/bin/node").toBeDefined();
    const into = path.join(scratch, "node-layer");
    mkdirSync(into);
    await run("tar", ["-xf", path.join(extracted, nodeLayer!), "-C", into, "usr/local/bin/node", "etc/passwd"]);
    const version = (await run(path.join(into, "usr/local/bin/node"), ["--version"])).trim();
    expect(`node:${version.slice(1)}-`).toBe(declared.from.slice(0, declared.from.indexOf("-") + 1));
    const uid = declared.user!.split(":")[0];
    expect(readFileSync(path.join(into, "etc/passwd"), "utf8")).toMatch(new RegExp(`^[^:]+:x:${uid}:`, "m"));
  });

  it("has in its app folder exactly the files the Dockerfile's build stage produces", async () => {
    expect(declared.appCopy).toEqual(["/out", declared.workdir]);
    const appFolder = declared.workdir!.replace(/^\//, "");
    const inImage = layers
      .flat()
      .filter((entry) => entry.startsWith(`${appFolder}/`) && !entry.endsWith("/"))
      .map((entry) => entry.slice(appFolder.length + 1))
      .sort();

    // The build context: every file of the checkout that Dockerfile.dockerignore admits (matched by
    // @balena/dockerignore, a port of Docker's matcher), dependencies installed as the lockfile says.
    const dockerignore = createRequire(import.meta.url)("@balena/dockerignore") as () => {
      add(patterns: string[]): { filter(paths: string[]): string[] };
    };
    const patterns = readFileSync(`${dockerfile}.dockerignore`, "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    const checkout = (await run("git", ["ls-files", "--cached", "--others", "--exclude-standard"]))
      .split("\n")
      .filter((file) => file && existsSync(path.join(root, file)));
    const context = path.join(scratch, "context");
    for (const file of dockerignore().add(patterns).filter(checkout)) {
      mkdirSync(path.dirname(path.join(context, file)), { recursive: true });
      cpSync(path.join(root, file), path.join(context, file));
    }
    // `npm install` in the Dockerfile gives the tree this checkout's install made from the same lockfile.
    const workspaces = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { workspaces: string[] }).workspaces;
    for (const folder of [".", ...workspaces].filter((folder) => existsSync(path.join(root, folder, "node_modules")))) {
      await run("cp", ["-al", path.join(root, folder, "node_modules"), path.join(context, folder, "node_modules")]);
    }
    await run("bash", ["scripts/build-production", path.join(scratch, "expected")], context);
    const expected = (await run("find", [".", "-type", "f", "-o", "-type", "l"], path.join(scratch, "expected")))
      .split("\n")
      .filter(Boolean)
      .map((file) => file.replace(/^\.\//, ""))
      .sort();
    expect(inImage.length).toBeGreaterThan(1000);
    expect(inImage).toEqual(expected);
  }, 900_000);
});
