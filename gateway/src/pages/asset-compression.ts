import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";

/** The encodings the gateway serves precompressed, in order of preference: a file's variant is `<name>.<suffix>`. */
export const ENCODINGS = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;
export type Encoding = (typeof ENCODINGS)[number]["encoding"];

/** Text formats worth compressing; below 1 KB the headers cost more than the bytes saved. */
const COMPRESSIBLE = new Set([".js", ".css", ".map", ".svg", ".json"]);
const MIN_BYTES = 1024;

export const isCompressedVariant = (name: string) => ENCODINGS.some(({ suffix }) => name.endsWith(suffix));

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Adds `<name>.br` and `<name>.gz` beside each text file worth compressing, at build time, so no
 * request ever waits for compression and the pages' scripts travel at the best ratio there is
 * (brotli 11, gzip 9: seconds of CPU once per bundle, never per request). Source maps are read by
 * developer tools only: brotli 5 keeps the build short for them.
 */
export async function precompress(files: Map<string, Uint8Array>): Promise<Map<string, Uint8Array>> {
  const result = new Map(files);
  await Promise.all(
    [...files].map(async ([name, contents]) => {
      const extension = path.extname(name);
      if (!COMPRESSIBLE.has(extension) || contents.byteLength < MIN_BYTES) return;
      const quality = extension === ".map" ? 5 : zlib.BROTLI_MAX_QUALITY;
      const [br, gz] = await Promise.all([
        brotli(contents, { params: { [zlib.BROTLI_PARAM_QUALITY]: quality, [zlib.BROTLI_PARAM_SIZE_HINT]: contents.byteLength } }),
        gzipAsync(contents, { level: 9 }),
      ]);
      result.set(`${name}.br`, br);
      result.set(`${name}.gz`, gz);
    }),
  );
  return result;
}
