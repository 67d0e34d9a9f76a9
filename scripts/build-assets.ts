// Bundles the pages' browser code (gateway/web/<entry>/main.ts) for production into DIR:
// fingerprinted files, their source maps and precompressed variants (.br, .gz), plus manifest.json, which the compiled gateway reads at start
// (gateway/src/pages/assets.ts). scripts/build runs it into <out>/gateway/dist/assets.
//
// With --cache instead of DIR, it fills the cache a gateway run from source reads at start
// (gateway/src/pages/asset-bundle-cache.ts), as that gateway would: the first gateway of a fresh
// clone then starts in milliseconds instead of spending ~20 s of CPU compressing (a minute and more
// on a loaded machine, past a test stack's readiness deadline). .ci/run and scripts/test run it.
//
// Usage: node scripts/build-assets.ts DIR | --cache
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundleAssets } from "../gateway/src/pages/asset-bundle.ts";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node scripts/build-assets.ts DIR | --cache\n");
  process.exit(2);
}
if (dir === "--cache") {
  // Imported here only: the production build (scripts/build, in the image's build context) runs
  // this script before any workspace is compiled, when @svc/platform does not resolve yet.
  const [{ createLogger }, { loadAssets }] = await Promise.all([import("@svc/platform"), import("../gateway/src/pages/assets.ts")]);
  await loadAssets(createLogger("build-assets"));
  process.exit(0);
}
const bundle = await bundleAssets();
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
for (const [name, contents] of bundle.files) writeFileSync(path.join(dir, name), contents);
writeFileSync(path.join(dir, "manifest.json"), `${JSON.stringify(bundle.manifest, null, 2)}\n`);
process.stderr.write(`build-assets: ${Object.keys(bundle.manifest).join(", ")} into ${path.resolve(dir)}\n`);
