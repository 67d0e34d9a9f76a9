// Packs layer tarballs and an image configuration into a docker-archive tarball (the format of
// `docker save`), which `ctr images import`, `docker load`, `podman load` and skopeo all read. No
// daemon and no registry: the image is these bytes. Deterministic: the same layers and settings
// give the same image ID.
//
// Usage: scripts/node scripts/images/docker-archive.ts OUT.tar SPEC.json
//   SPEC: { "ref": "localhost/svc:dev", "layers": ["base.tar", ...],
//           "config": { "User", "Env", "Entrypoint", "Cmd", "WorkingDir", "ExposedPorts", "Labels" } }
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, linkSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface ImageSpec {
  ref: string;
  layers: string[];
  config: Record<string, unknown>;
  history?: string[];
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function writeDockerArchive(out: string, spec: ImageSpec): Promise<string> {
  const staging = mkdtempSync(path.join(os.tmpdir(), "docker-archive-"));
  try {
    const diffIds: string[] = [];
    const layerNames: string[] = [];
    for (const layer of spec.layers) {
      const digest = await sha256Of(layer);
      diffIds.push(`sha256:${digest}`);
      mkdirSync(path.join(staging, digest), { recursive: true });
      // A hard link when the layer is on the same file system (no copy of hundreds of MB).
      try {
        linkSync(layer, path.join(staging, digest, "layer.tar"));
      } catch {
        writeFileSync(path.join(staging, digest, "layer.tar"), readFileSync(layer));
      }
      layerNames.push(`${digest}/layer.tar`);
    }
    const created = "1970-01-01T00:00:00Z";
    const config = {
      architecture: "amd64",
      os: "linux",
      created,
      config: spec.config,
      rootfs: { type: "layers", diff_ids: diffIds },
      history: spec.layers.map((layer, i) => ({ created, created_by: spec.history?.[i] ?? `layer ${path.basename(layer)}` })),
    };
    const configBytes = Buffer.from(JSON.stringify(config));
    const imageId = createHash("sha256").update(configBytes).digest("hex");
    writeFileSync(path.join(staging, `${imageId}.json`), configBytes);
    writeFileSync(path.join(staging, "manifest.json"), JSON.stringify([{ Config: `${imageId}.json`, RepoTags: [spec.ref], Layers: layerNames }]));
    execFileSync("tar", [
      "--sort=name",
      "--mtime=@0",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      "--hard-dereference",
      "-C",
      staging,
      "-cf",
      out,
      "manifest.json",
      `${imageId}.json`,
      ...layerNames,
    ]);
    return `sha256:${imageId}`;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [out, specFile] = process.argv.slice(2);
  if (!out || !specFile) throw new Error("usage: docker-archive.ts OUT.tar SPEC.json");
  const id = await writeDockerArchive(out, JSON.parse(readFileSync(specFile, "utf8")) as ImageSpec);
  process.stdout.write(`${id}\n`);
}
