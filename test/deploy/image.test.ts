// The image scripts/build-images makes without a container daemon must be the image
// deploy/docker/Dockerfile describes, on what matters to the chart and to operators: the user,
// the entry point and command, the environment, the working directory, the exposed ports, the
// Node version, and the list of files in the app folder. The Dockerfile is read here on its own
// (plain text, not scripts/images/dockerfile-config.ts), and the app folder is rebuilt here the
// way the Dockerfile's build stage does it: the build context its ignore file admits, then
// `scripts/build-production /out`.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { dockerfile, root } from "./chart.ts";

const execFileAsync = promisify(execFile);
const run = (command: string, args: string[], cwd = root) =>
  execFileAsync(command, args, { cwd, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NICE: "nice -n 10" } }).then((result) => result.stdout);

/** What a Dockerfile's final stage declares, read line by line. */
function finalStage(file = dockerfile) {
  const lines = readFileSync(file, "utf8")
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
    // RUN ... apt-get install [options] PACKAGES && ...
    aptPackages: stage
      .filter((line) => line.startsWith("RUN "))
      .flatMap((line) => line.split(/&&|;/))
      .flatMap((command) => /\bapt-get\s+install\s+(.*)$/.exec(command.trim())?.[1]?.split(/\s+/) ?? [])
      .filter((word) => word && !word.startsWith("-")),
  };
}

interface ImageConfig {
  config: { User?: string; WorkingDir?: string; Env?: string[]; Cmd?: string[]; Entrypoint?: string[]; ExposedPorts?: Record<string, object> };
  rootfs: { diff_ids: string[] };
}

/** Unpacks an image's layers in order as a container runtime does: `.wh.NAME` deletes NAME, `.wh..wh..opq` empties its folder. */
async function unpack(extracted: string, layers: string[], into: string) {
  for (const layer of layers) {
    const entries = (await run("tar", ["-tf", path.join(extracted, layer)])).split("\n").filter(Boolean);
    for (const entry of entries.filter((name) => path.basename(name) === ".wh..wh..opq")) {
      const folder = path.join(into, path.dirname(entry));
      if (existsSync(folder)) for (const child of readdirSync(folder)) rmSync(path.join(folder, child), { recursive: true, force: true });
    }
    await run("tar", ["-xf", path.join(extracted, layer), "-C", into]);
    for (const entry of entries.filter((name) => path.basename(name).startsWith(".wh."))) {
      rmSync(path.join(into, entry), { force: true });
      const base = path.basename(entry).slice(".wh.".length);
      if (base !== ".wh..opq") rmSync(path.join(into, path.dirname(entry), base), { recursive: true, force: true });
    }
  }
}

/** Builds one image with scripts/build-images and reads its archive: manifest, configuration, and the folder it was unpacked into. */
async function buildAndRead(image: "svc" | "egress" | "transcriber", scratch: string) {
  const archive = (await run("bash", ["scripts/build-images", "--image", image, "--tag", "image-test", "--out", path.join(scratch, "out")])).trim();
  const extracted = path.join(scratch, "archive");
  mkdirSync(extracted);
  await run("tar", ["-xf", archive, "-C", extracted]);
  const manifest = (JSON.parse(readFileSync(path.join(extracted, "manifest.json"), "utf8")) as { Config: string; RepoTags: string[]; Layers: string[] }[])[0]!;
  const config = JSON.parse(readFileSync(path.join(extracted, manifest.Config), "utf8")) as ImageConfig & { history: { created_by: string }[] };
  return { archive, extracted, manifest, config };
}

/** An image configuration's environment as an object. */
const envOf = (config: ImageConfig) =>
  Object.fromEntries((config.config.Env ?? []).map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));

/** The Debian packages installed in an unpacked image (dpkg's status file). */
const installedPackages = (rootfs: string) =>
  new Set(
    readFileSync(path.join(rootfs, "var/lib/dpkg/status"), "utf8")
      .split("\n\n")
      .filter((paragraph) => /^Status: install ok installed$/m.test(paragraph))
      .map((paragraph) => /^Package: (\S+)$/m.exec(paragraph)![1]),
  );

/** What a slim image leaves out and an image build must not leave behind: package lists, documentation besides licences. */
function slimLeftovers(rootfs: string): string[] {
  const lists = readdirSync(path.join(rootfs, "var/lib/apt/lists")).filter((name) => name !== "partial" && name !== "lock");
  const docs = readdirSync(path.join(rootfs, "usr/share/doc"), { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && entry.name !== "copyright",
  );
  return [...lists.map((name) => `var/lib/apt/lists/${name}`), ...docs.map((entry) => path.join(entry.parentPath, entry.name))];
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
    ({ extracted, manifest, config } = await buildAndRead("svc", scratch));
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

// The recorder's image (deploy/egress/Dockerfile), built by scripts/images/build-egress (called by
// scripts/build-images): the Dockerfile's packages in a chroot of the same Debian base, the egress
// binary scripts/egress builds for the tests and `npm start`, the entry point, and the final
// stage's user, environment and entry point. Its files are unpacked in layer order (whiteouts
// applied) and the binaries run in a chroot of them, so a missing library fails here.
const egressDockerfile = path.join(root, "deploy/egress/Dockerfile");

describe("the image scripts/build-images makes agrees with deploy/egress/Dockerfile", () => {
  const declared = finalStage(egressDockerfile);
  let scratch: string;
  let config: ImageConfig & { history: { created_by: string }[] };
  let manifest: { Config: string; RepoTags: string[]; Layers: string[] };
  let rootfs: string;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "egress-image-test-"));
    let extracted: string;
    ({ extracted, manifest, config } = await buildAndRead("egress", scratch));
    rootfs = path.join(scratch, "rootfs");
    mkdirSync(rootfs);
    await unpack(extracted, manifest.Layers, rootfs);
  }, 1_800_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is named as asked: the base layer, the Dockerfile's packages, then egress", () => {
    expect(manifest.RepoTags).toEqual(["localhost/svc-egress:image-test"]);
    expect(manifest.Layers.map((layer) => `sha256:${layer.split("/")[0]}`)).toEqual(config.rootfs.diff_ids);
    expect(config.history.map((entry) => entry.created_by.split(" ")[0])).toEqual(["debootstrap", "apt-get", "scripts/egress"]);
  });

  it("runs as the Dockerfile's user with its entry point and environment, and nothing else", () => {
    expect(declared.user).toBe("1000:1000");
    expect(config.config.User).toBe(declared.user);
    expect(config.config.Entrypoint).toEqual(declared.entrypoint);
    expect(config.config.Cmd).toEqual(declared.cmd);
    expect(Object.keys(config.config.ExposedPorts ?? {})).toEqual(declared.exposed);
    const env = Object.fromEntries((config.config.Env ?? []).map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
    expect(Object.keys(declared.env).length).toBeGreaterThan(0);
    expect(env).toEqual({ ...declared.env, PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" });
  });

  it("has every package the Dockerfile's final stage installs, without package lists or documentation", () => {
    expect(declared.aptPackages.length).toBeGreaterThan(5);
    const installed = installedPackages(rootfs);
    expect(declared.aptPackages.filter((name) => !installed.has(name))).toEqual([]);
    expect(slimLeftovers(rootfs)).toEqual([]);
  });

  it("holds the egress binary scripts/egress builds and the entry point, and they run with the image's libraries", async () => {
    const built = (await run("bash", ["scripts/egress", "path"])).trim();
    expect(readFileSync(path.join(rootfs, "usr/local/bin/egress")).equals(readFileSync(built))).toBe(true);
    expect(readFileSync(path.join(rootfs, "usr/local/bin/egress-entrypoint"), "utf8")).toBe(
      readFileSync(path.join(root, "deploy/egress/entrypoint.sh"), "utf8"),
    );
    expect(declared.entrypoint).toEqual(["/usr/local/bin/egress-entrypoint"]);
    expect(statSync(path.join(rootfs, "usr/local/bin/egress-entrypoint")).mode & 0o111).toBe(0o111);
    // What egress starts: itself (cgo against GStreamer), Xvfb, PulseAudio, Chromium.
    for (const binary of ["/usr/local/bin/egress", "/usr/bin/Xvfb", "/usr/bin/pulseaudio", "/usr/lib/chromium/chromium"]) {
      expect(await run("chroot", [rootfs, "/usr/bin/ldd", binary]), binary).not.toMatch(/not found/);
    }
    expect(await run("chroot", [rootfs, "/usr/local/bin/egress", "--version"])).toMatch(/1\.8\.6/);
  });
});

// The transcription worker's image (deploy/transcriber/Dockerfile, FROM the services' image), built
// by scripts/images/build-transcriber (called by scripts/build-images): the services' image's own
// three layers, the final stage's packages (Python) in a chroot of them, and the worker's virtual
// environment made from the pinned wheels. Unpacked as a container runtime does; the environment's
// Python runs in a chroot of it as the image's user, so a missing library or an unreadable file fails here.
const transcriberDockerfile = path.join(root, "deploy/transcriber/Dockerfile");
const transcriberRequirements = path.join(root, "services/meeting/transcriber/requirements.txt");

describe("the image scripts/build-images makes agrees with deploy/transcriber/Dockerfile", () => {
  const declared = finalStage(transcriberDockerfile);
  const services = finalStage();
  let scratch: string;
  let image: Awaited<ReturnType<typeof buildAndRead>>;
  let servicesImage: Awaited<ReturnType<typeof buildAndRead>>;
  let rootfs: string;
  /** Runs a command in a chroot of the unpacked image as its user, with only the image's environment and working directory. */
  const inImage = (command: string[]) =>
    run("chroot", [
      `--userspec=${declared.user}`,
      rootfs,
      "/usr/bin/env",
      "-i",
      ...(image.config.config.Env ?? []),
      "sh",
      "-c",
      `cd ${image.config.config.WorkingDir} && exec "$@"`,
      "sh",
      ...command,
    ]);

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "transcriber-image-test-"));
    mkdirSync(path.join(scratch, "services"));
    mkdirSync(path.join(scratch, "transcriber"));
    servicesImage = await buildAndRead("svc", path.join(scratch, "services"));
    image = await buildAndRead("transcriber", path.join(scratch, "transcriber"));
    rootfs = path.join(scratch, "rootfs");
    mkdirSync(rootfs);
    await unpack(image.extracted, image.manifest.Layers, rootfs);
  }, 1_800_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is the services' image's three layers, then the Dockerfile's packages, then the worker's environment", () => {
    expect(declared.from).toMatch(/^svc:/);
    expect(image.manifest.RepoTags).toEqual(["localhost/svc-transcriber:image-test"]);
    expect(image.manifest.Layers.map((layer) => `sha256:${layer.split("/")[0]}`)).toEqual(image.config.rootfs.diff_ids);
    expect(image.config.rootfs.diff_ids.slice(0, 3)).toEqual(servicesImage.config.rootfs.diff_ids);
    expect(image.config.history.map((entry) => entry.created_by.split(" ")[0])).toEqual([
      "debootstrap",
      "node",
      "scripts/build-production",
      "apt-get",
      "python3",
    ]);
  });

  it("runs the worker as the Dockerfile's user, with the chart's Python, and keeps the rest of the services' image's configuration", () => {
    expect(declared.user).toBe("1000:1000");
    expect(image.config.config.User).toBe(declared.user);
    expect(image.config.config.Cmd).toEqual(declared.cmd);
    expect(declared.cmd!.at(-1)).toBe("services/meeting/dist/transcription/worker-main.js");
    expect(image.config.config.Entrypoint).toEqual(declared.entrypoint);
    // FROM the services' image: its working directory, ports and environment, then this file's.
    expect(image.config.config.WorkingDir).toBe(services.workdir);
    expect(Object.keys(image.config.config.ExposedPorts ?? {}).sort()).toEqual([...services.exposed].sort());
    expect(envOf(image.config)).toEqual({ ...envOf(servicesImage.config), ...declared.env });
    // The chart's transcriber.python is the environment the image holds.
    const values = parse(readFileSync(path.join(root, "deploy/helm/svc/values.yaml"), "utf8")) as { transcriber: { python: string } };
    expect(declared.env.TRANSCRIBER_PYTHON).toBe(values.transcriber.python);
    expect(existsSync(path.join(rootfs, values.transcriber.python))).toBe(true);
    expect(existsSync(path.join(rootfs, "app", declared.cmd!.at(-1)!))).toBe(true);
  });

  it("has every package the Dockerfile's final stage installs, without package lists or documentation", () => {
    expect(declared.aptPackages).toContain("python3");
    const installed = installedPackages(rootfs);
    expect(declared.aptPackages.filter((name) => !installed.has(name))).toEqual([]);
    expect(slimLeftovers(rootfs)).toEqual([]);
  });

  it("holds in /opt/transcriber exactly the wheels requirements.txt pins, and nothing of the build (no pip cache)", () => {
    const normalized = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");
    const pinned = [...readFileSync(transcriberRequirements, "utf8").matchAll(/^([A-Za-z0-9_.-]+)==(\S+)/gm)].map(
      ([, name, version]) => `${normalized(name!)}==${version}`,
    );
    expect(pinned.length).toBeGreaterThan(10);
    const sitePackages = readdirSync(path.join(rootfs, "opt/transcriber/lib")).map((python) =>
      path.join(rootfs, "opt/transcriber/lib", python, "site-packages"),
    );
    expect(sitePackages).toHaveLength(1);
    const installed = readdirSync(sitePackages[0]!)
      .filter((name) => name.endsWith(".dist-info"))
      .map((name) => /^(.+)-([^-]+)\.dist-info$/.exec(name)!)
      .map(([, name, version]) => `${normalized(name!)}==${version}`)
      // venv's own installer, which the Dockerfile's `python3 -m venv` puts there too.
      .filter((entry) => !/^(pip|setuptools)==/.test(entry));
    expect(installed.sort()).toEqual(pinned.sort());
    expect(existsSync(path.join(rootfs, "root/.cache"))).toBe(false);
    expect(readdirSync(path.join(rootfs, "tmp"))).toEqual([]);
  });

  it("as the image's user: the model files verify against their pins, and the speech model's native libraries load", async () => {
    const python = declared.env.TRANSCRIBER_PYTHON!;
    const verified = JSON.parse(
      await inImage(["env", "PYTHONPATH=services/meeting/transcriber", "PYTHONDONTWRITEBYTECODE=1", python, "-m", "svc_transcriber", "verify"]),
    ) as { verified: boolean; model: string };
    expect(verified.verified).toBe(true);
    expect(verified.model.startsWith("/opt/transcriber/")).toBe(true);
    // CTranslate2 (the model), PyAV (FFmpeg: Opus and AAC), ONNX Runtime (the voice-activity filter).
    const versions = await inImage([
      python,
      "-c",
      "import ctranslate2, av, onnxruntime, faster_whisper; print(ctranslate2.__version__, av.__version__, faster_whisper.__version__)",
    ]);
    const pins = readFileSync(transcriberRequirements, "utf8");
    const pin = (name: string) => new RegExp(`^${name}==(\\S+)`, "m").exec(pins)![1];
    expect(versions.trim()).toBe(`${pin("ctranslate2")} ${pin("av")} ${pin("faster-whisper")}`);
  });
});
