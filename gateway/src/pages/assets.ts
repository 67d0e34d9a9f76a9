import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { Router } from "express";
import type { Logger } from "@svc/platform";
import type { AssetManifest } from "./asset-bundle.ts";
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
  /** Text over 1 KB: compressed once (see `compress`), chosen per request from Accept-Encoding. */
  compressed?: () => { br: Buffer; gzip: Buffer };
}

/** Compresses `raw` once, at start or at the first request that wants it. */
function compression(raw: Buffer, when: "at-start" | "on-first-request") {
  let result: { br: Buffer; gzip: Buffer } | undefined;
  const compress = () => (result ??= { gzip: gzipSync(raw, { level: 9 }), br: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }) });
  if (when === "at-start") compress();
  return compress;
}

/** The pages' browser assets: fingerprinted files in memory, and the tags that load them. */
export interface Assets {
  /** `<link rel="stylesheet">` for the entry's CSS, plus its `<script type="module">` unless `styleOnly`. */
  tags(entry: string, options?: { styleOnly?: boolean }): SafeHtml;
  /** Serves GET /assets/<file> with immutable caching; unknown files fall through (404). */
  routes(): Router;
  manifest: AssetManifest;
}

/**
 * `compress`: "at-start" (the default, production: every request is served compressed, the cost
 * is paid once before listening) or "on-first-request" (from source: the development bundles, with
 * source maps, are about 30 MB, which would take seconds to compress at every start of a test stack).
 */
export function createAssets(manifest: AssetManifest, files: Map<string, Uint8Array>, options: { compress?: "at-start" | "on-first-request" } = {}): Assets {
  const stored = new Map<string, StoredFile>();
  for (const [name, contents] of files) {
    // A view, not a copy: the bundles from source are about 30 MB.
    const raw = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
    const type = contentTypes[path.extname(name)] ?? "application/octet-stream";
    const text = /^(text\/|application\/json)/.test(type) || type === "image/svg+xml";
    stored.set(name, text && raw.length > 1024 ? { type, raw, compressed: compression(raw, options.compress ?? "at-start") } : { type, raw });
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
        const accepts = req.acceptsEncodings("br", "gzip", "identity");
        const encoded = file.compressed && (accepts === "br" || accepts === "gzip") ? file.compressed()[accepts] : undefined;
        res.set({ "Content-Type": file.type, "Cache-Control": IMMUTABLE, Vary: "Accept-Encoding" });
        if (encoded) res.set("Content-Encoding", accepts as string);
        res.end(encoded ?? file.raw);
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
 * (`npm start`, the test stacks), the gateway bundles gateway/web itself, in memory, in about
 * 100-300 ms: every way of running the source then serves assets that match it, with no build
 * step to forget, no stale files on disk and no two processes writing the same directory.
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
    extraInputs: [fileURLToPath(new URL("./asset-bundle.ts", import.meta.url))],
    bundle: () => bundleAssets({ production: false, root: webRoot }),
    onCacheError: (error) => logger.debug({ err: error }, "browser asset cache not used"),
  });
  logger.info(
    { entries: Object.keys(bundle.manifest), ms: Math.round(performance.now() - started), reused },
    reused ? "browser assets from source, unchanged since the last bundle (development)" : "bundled browser assets from source (development)",
  );
  return createAssets(bundle.manifest, bundle.files, { compress: "on-first-request" });
}
