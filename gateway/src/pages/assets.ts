import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Router } from "express";
import type { Logger } from "@svc/platform";
import type { AssetManifest } from "./asset-bundle.ts";
import { ENCODINGS, isCompressedVariant, type Encoding } from "./asset-compression.ts";
import { html, type SafeHtml } from "@svc/platform";

/** Where the bundled browser assets are served. */
export const ASSETS_PATH = "/assets";
const IMMUTABLE = "public, max-age=31536000, immutable";

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

interface StoredFile {
  type: string;
  raw: Buffer;
  /** The build's precompressed variants (asset-compression.ts), by encoding. */
  encoded: Partial<Record<Encoding, Buffer>>;
}

/** The pages' browser assets: fingerprinted files in memory, and the tags that load them. */
export interface Assets {
  /** `<link rel="stylesheet">` for the entry's CSS, plus its `<script type="module">` unless `styleOnly`. */
  tags(entry: string, options?: { styleOnly?: boolean }): SafeHtml;
  /** Serves GET /assets/<file> with immutable caching; unknown files fall through (404). */
  routes(): Router;
  manifest: AssetManifest;
}

/** A view of the bytes, not a copy. */
const bufferOf = (contents: Uint8Array) => Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);

/**
 * The bundle's files as served: each with the variants the build compressed (`<name>.br`,
 * `<name>.gz`), chosen per request from Accept-Encoding, so a request never waits for compression.
 * The variants are not addresses of their own.
 */
export function createAssets(manifest: AssetManifest, files: Map<string, Uint8Array>): Assets {
  const stored = new Map<string, StoredFile>();
  for (const [name, contents] of files) {
    if (isCompressedVariant(name)) continue;
    const encoded: StoredFile["encoded"] = {};
    for (const { encoding, suffix } of ENCODINGS) {
      const variant = files.get(name + suffix);
      if (variant) encoded[encoding] = bufferOf(variant);
    }
    stored.set(name, { type: contentTypes[path.extname(name)] ?? "application/octet-stream", raw: bufferOf(contents), encoded });
  }
  const url = (file: string) => `${ASSETS_PATH}/${file}`;
  return {
    manifest,
    tags(entry, options = {}) {
      const files = manifest[entry];
      if (!files) throw new Error(`no browser asset entry "${entry}" (gateway/web/${entry}/main.ts)`);
      return html`${files.css.map(
        (file) => html`<link rel="stylesheet" href="${url(file)}">
`,
      )}${options.styleOnly ? null : html`<script type="module" src="${url(files.js)}"></script>`}`;
    },
    routes() {
      const router = Router();
      router.get(`${ASSETS_PATH}/:file`, (req, res, next) => {
        const file = stored.get(req.params.file);
        if (!file) return next();
        const offered = ENCODINGS.map(({ encoding }) => encoding).filter((encoding) => file.encoded[encoding]);
        const accepts = offered.length > 0 ? req.acceptsEncodings([...offered, "identity"]) : false;
        const encoding = offered.find((candidate) => candidate === accepts);
        res.set({ "Content-Type": file.type, "Cache-Control": IMMUTABLE, Vary: "Accept-Encoding" });
        if (encoding) res.set("Content-Encoding", encoding);
        res.end(encoding ? file.encoded[encoding]! : file.raw);
      });
      return router;
    },
  };
}

/**
 * Loads the browser assets once, at start.
 *
 * Compiled JavaScript (the production image, `node gateway/dist/main.js`) reads what
 * `npm run build` put beside it in dist/assets and refuses to start without it. Run from source
 * (`npm start`, the test stacks), the gateway bundles gateway/web itself with the same production
 * configuration (asset-bundle.ts), once per change of the sources (asset-bundle-cache.ts: the
 * compression takes seconds, reading the cached bundle milliseconds): every way of running the
 * source then serves assets that match it, as production serves them, with no build step to forget.
 * Being compiled or not, rather than NODE_ENV, decides: it is what says whether sources exist.
 */
export async function loadAssets(logger: Logger): Promise<Assets> {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".js")) {
    const dir = path.join(path.dirname(here), "..", "assets");
    const manifestFile = path.join(dir, "manifest.json");
    if (!existsSync(manifestFile)) throw new Error(`browser assets missing: ${manifestFile} not found (npm run build writes it)`);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as AssetManifest;
    const files = new Map<string, Uint8Array>();
    for (const name of readdirSync(dir)) if (name !== "manifest.json") files.set(name, readFileSync(path.join(dir, name)));
    return createAssets(manifest, files);
  }
  const started = performance.now();
  const { bundleAssets, entryNames, webRoot } = await import("./asset-bundle.ts");
  const { cachedAssetBundle } = await import("./asset-bundle-cache.ts");
  const { bundle, reused } = await cachedAssetBundle({
    // The repository's node_modules/.cache, where build tools keep what they can make again.
    dir: fileURLToPath(new URL("../../../node_modules/.cache/svc-gateway-assets/", import.meta.url)),
    entries: entryNames(),
    extraInputs: [fileURLToPath(new URL("./asset-bundle.ts", import.meta.url)), fileURLToPath(new URL("./asset-compression.ts", import.meta.url))],
    bundle: () => bundleAssets({ root: webRoot }),
    onCacheError: (error) => logger.debug({ err: error }, "browser asset cache not used"),
  });
  logger.info(
    { entries: Object.keys(bundle.manifest), ms: Math.round(performance.now() - started), reused },
    reused ? "browser assets from source, unchanged since the last bundle" : "bundled browser assets from source",
  );
  return createAssets(bundle.manifest, bundle.files);
}
