// Copies the build context `docker build` would send for a Dockerfile into a folder: every file of
// the source folder that the Dockerfile's ignore file (<Dockerfile>.dockerignore, else
// .dockerignore) admits, matched by @balena/dockerignore (a port of Docker's own matcher). Prints
// a SHA-256 over the copied files' paths, modes and contents, so scripts/build-images can tell
// when the context changed.
//
// Usage: scripts/node scripts/images/docker-context.ts DOCKERFILE SOURCE_DIR DEST_DIR
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// A CommonJS module whose typings declare an ES default export: require() gives the function.
const ignore = createRequire(import.meta.url)("@balena/dockerignore") as () => { add(patterns: string[]): { ignores(path: string): boolean } };

/** The ignore file Docker (BuildKit) reads for this Dockerfile. */
export function ignoreFileFor(dockerfile: string, sourceDir: string): string | undefined {
  const own = `${dockerfile}.dockerignore`;
  if (existsSync(own)) return own;
  const shared = path.join(sourceDir, ".dockerignore");
  return existsSync(shared) ? shared : undefined;
}

/** Paths (relative, with "/") of every file in the context, sorted. */
export function contextFiles(dockerfile: string, sourceDir: string): string[] {
  const ignoreFile = ignoreFileFor(dockerfile, sourceDir);
  const patterns = ignoreFile
    ? readFileSync(ignoreFile, "utf8")
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith("#"))
    : [];
  const matcher = ignore().add(patterns);
  // A folder can be skipped whole only if it is ignored and no exception pattern could re-admit
  // something inside it (Docker walks into ignored folders when an exception might apply).
  const exceptionPrefixes = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1).replace(/^\/+/, "").split(/[*?[]/)[0]!);
  const mayReadmit = (dir: string) => exceptionPrefixes.some((prefix) => prefix.startsWith(`${dir}/`) || `${dir}/`.startsWith(prefix));
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(sourceDir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (matcher.ignores(child) && !mayReadmit(child)) continue;
        walk(child);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && !matcher.ignores(child)) {
        files.push(child);
      }
    }
  };
  walk("");
  return files.sort();
}

function main() {
  const [dockerfile, sourceDir, destDir] = process.argv.slice(2);
  if (!dockerfile || !sourceDir || !destDir) throw new Error("usage: docker-context.ts DOCKERFILE SOURCE_DIR DEST_DIR");
  const hash = createHash("sha256");
  for (const file of contextFiles(dockerfile, sourceDir)) {
    const from = path.join(sourceDir, file);
    const to = path.join(destDir, file);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
    const mode = statSync(from).mode & 0o777;
    hash
      .update(`${file}\0${mode.toString(8)}\0`)
      .update(readFileSync(from))
      .update("\0");
  }
  process.stdout.write(`${hash.digest("hex")}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
