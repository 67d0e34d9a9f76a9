import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { precompress } from "./asset-compression.ts";

/** One page's bundle: its script and the style sheets it imports, as fingerprinted file names. */
export interface AssetEntry {
  js: string;
  css: string[];
}

/** Entry name (the folder under gateway/web) → its files; written as manifest.json beside them. */
export type AssetManifest = Record<string, AssetEntry>;

export interface AssetBundle {
  manifest: AssetManifest;
  /** File name (no directory) → contents. */
  files: Map<string, Uint8Array>;
  /** Absolute paths of every file the bundler read (sources, styles, packages). */
  inputs: string[];
}

/** Browser code lives in gateway/web/<entry>/main.ts; folders without a main.ts (shared/) are libraries. */
export const webRoot = fileURLToPath(new URL("../../web/", import.meta.url));

export function entryNames(root = webRoot): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((dirent) => dirent.isDirectory() && existsSync(path.join(root, dirent.name, "main.ts")))
    .map((dirent) => dirent.name)
    .sort();
}

/**
 * Bundles every page entry with esbuild: one ES module and one style sheet per entry, named
 * `<entry>-<content hash>`, so the gateway can serve them as immutable. esbuild because it is
 * one small, dependency-free binary that bundles TypeScript and CSS in about 100 ms (livekit-client
 * included); the type checking stays with `tsc -p gateway/web` (npm run typecheck).
 *
 * One build, the production one, wherever the gateway runs (the image, `npm start`, the tests):
 * minified, each file with a linked source map (`<file>.map`, fetched by developer tools only) and
 * precompressed variants (asset-compression.ts), so what is measured and tested is what people get.
 *
 * esbuild is a development dependency: production images ship the output of scripts/build-assets.ts
 * and never import this module.
 */
export async function bundleAssets(options: { root?: string } = {}): Promise<AssetBundle> {
  const root = options.root ?? webRoot;
  const { build, stop } = await import("esbuild");
  const entries = entryNames(root);
  if (entries.length === 0) throw new Error(`no page entries (<entry>/main.ts) under ${root}`);
  // Output is kept in memory (write: false); outdir only anchors the relative names. esbuild's
  // service process (hundreds of MB after a build) and its read buffer in this process (about twice
  // the output) would otherwise live as long as the gateway: stopped after the build (a later
  // build starts it again).
  const outdir = path.join(root, ".bundle");
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries.map((entry) => [entry, path.join(root, entry, "main.ts")])),
    bundle: true,
    format: "esm",
    platform: "browser",
    // Workspace packages resolve to their TypeScript sources (the `source` export condition).
    conditions: ["source"],
    // Browsers that have everything LiveKit's client needs (WebRTC insertable streams aside).
    target: ["chrome109", "edge109", "firefox115", "safari16"],
    splitting: false,
    minify: true,
    sourcemap: "linked",
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    loader: { ".svg": "file", ".png": "file", ".woff2": "file" },
    // Vue's compile-time flags (Scalar, on the API reference page): no devtools hooks or hydration
    // diagnostics in the pages; the options API stays, Scalar's components use it.
    define: { __VUE_OPTIONS_API__: "true", __VUE_PROD_DEVTOOLS__: "false", __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: "false" },
    outdir,
    write: false,
    metafile: true,
    logLevel: "silent",
    charset: "utf8",
  }).finally(stop);
  const files = new Map<string, Uint8Array>();
  for (const file of result.outputFiles) files.set(path.relative(outdir, file.path), file.contents);
  const manifest: AssetManifest = {};
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint || !output.endsWith(".js")) continue;
    const entry = entries.find((name) => path.resolve(root, meta.entryPoint!) === path.join(root, name, "main.ts"));
    if (!entry) continue;
    const relative = (file: string) => path.relative(outdir, path.resolve(root, file));
    manifest[entry] = { js: relative(output), css: meta.cssBundle ? [relative(meta.cssBundle)] : [] };
  }
  return { manifest, files: await precompress(files), inputs: Object.keys(result.metafile.inputs).map((input) => path.resolve(root, input)) };
}
