// Bundles the pages' browser code (gateway/web/<entry>/main.ts) for production into DIR:
// fingerprinted files, their source maps and precompressed variants (.br, .gz), plus manifest.json, which the compiled gateway reads at start
// (gateway/src/pages/assets.ts). scripts/build runs it into <out>/gateway/dist/assets.
//
// Usage: node scripts/build-assets.ts DIR
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundleAssets } from "../gateway/src/pages/asset-bundle.ts";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node scripts/build-assets.ts DIR\n");
  process.exit(2);
}
const bundle = await bundleAssets();
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
for (const [name, contents] of bundle.files) writeFileSync(path.join(dir, name), contents);
writeFileSync(path.join(dir, "manifest.json"), `${JSON.stringify(bundle.manifest, null, 2)}\n`);
process.stderr.write(`build-assets: ${Object.keys(bundle.manifest).join(", ")} into ${path.resolve(dir)}\n`);
