import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AssetBundle, AssetManifest } from "./asset-bundle.ts";

/**
 * Development only (a gateway run from source): the pages are bundled with esbuild at start, which
 * costs seconds of CPU, tens of seconds on a loaded machine, and every integration-test stack starts
 * a gateway. The last bundle is kept on disk with the SHA-256 of every file the bundler read (and of
 * the bundler's own configuration); it is reused only while every one of them is unchanged, so an
 * edit anywhere in the pages, their shared code or their packages makes a new bundle.
 *
 * Layout of `dir`: `index.json` (the current bundle's record) and one folder per bundle. A new
 * bundle is written to its own folder before `index.json` is replaced by a rename, so gateways
 * starting at the same time read either the old record or the new one, never half of one.
 */
interface CacheRecord {
  /** SHA-256 per input file, and per `extraInputs` (the bundler's configuration). */
  inputs: Record<string, string>;
  entries: string[];
  manifest: AssetManifest;
  folder: string;
  files: string[];
}

const sha256 = (content: Uint8Array) => createHash("sha256").update(content).digest("hex");

async function hashesOf(files: string[]): Promise<Record<string, string>> {
  const hashes = await Promise.all(files.map(async (file) => [file, sha256(await readFile(file))] as const));
  return Object.fromEntries(hashes);
}

async function readCurrent(dir: string, entries: string[], extraInputs: string[]): Promise<AssetBundle | undefined> {
  let record: CacheRecord;
  try {
    record = JSON.parse(await readFile(path.join(dir, "index.json"), "utf8")) as CacheRecord;
  } catch {
    return undefined;
  }
  if (record.entries.join("\n") !== entries.join("\n")) return undefined;
  const recorded = Object.keys(record.inputs);
  if (extraInputs.some((file) => !recorded.includes(file))) return undefined;
  // A file that is gone or changed means a new bundle.
  const current = await hashesOf(recorded).catch(() => undefined);
  if (!current || recorded.some((file) => current[file] !== record.inputs[file])) return undefined;
  const files = new Map<string, Uint8Array>();
  for (const name of record.files) files.set(name, await readFile(path.join(dir, record.folder, name)));
  return { manifest: record.manifest, files, inputs: recorded.filter((file) => !extraInputs.includes(file)) };
}

async function write(dir: string, entries: string[], bundle: AssetBundle, extraInputs: string[]): Promise<void> {
  const folder = randomUUID();
  await mkdir(path.join(dir, folder), { recursive: true });
  for (const [name, content] of bundle.files) await writeFile(path.join(dir, folder, name), content);
  const record: CacheRecord = {
    inputs: await hashesOf([...new Set([...bundle.inputs, ...extraInputs])]),
    entries,
    manifest: bundle.manifest,
    folder,
    files: [...bundle.files.keys()],
  };
  const temporary = path.join(dir, `index.json.${folder}`);
  await writeFile(temporary, JSON.stringify(record));
  await rename(temporary, path.join(dir, "index.json"));
  // Older bundles' folders, left a minute for a gateway that is still reading one.
  for (const name of await readdir(dir)) {
    if (name === folder || name === "index.json") continue;
    const stale = path.join(dir, name);
    if (Date.now() - (await stat(stale)).mtimeMs > 60_000) await rm(stale, { recursive: true, force: true });
  }
}

/**
 * The bundle `entries` make, from the cache in `dir` when every input is unchanged, else from
 * `bundle()` (then stored). `extraInputs`: files that shape the bundle without being read by the
 * bundler (its configuration). A cache that cannot be read or written is only a missed saving.
 */
export async function cachedAssetBundle(options: {
  dir: string;
  entries: string[];
  extraInputs: string[];
  bundle: () => Promise<AssetBundle>;
  onCacheError: (error: unknown) => void;
}): Promise<{ bundle: AssetBundle; reused: boolean }> {
  const reused = await readCurrent(options.dir, options.entries, options.extraInputs).catch((error: unknown) => {
    options.onCacheError(error);
    return undefined;
  });
  if (reused) return { bundle: reused, reused: true };
  const bundle = await options.bundle();
  await write(options.dir, options.entries, bundle, options.extraInputs).catch(options.onCacheError);
  return { bundle, reused: false };
}
