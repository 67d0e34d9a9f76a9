// The image specification docker-archive.ts packs: the layers in order, and the configuration the
// Dockerfile's final stage declares (dockerfile-config.ts: user, working directory, environment,
// entry point, command, ports), with the environment the base image itself sets placed first, as
// an image built FROM it has it.
//
// Usage: scripts/node scripts/images/image-spec.ts DOCKERFILE REF BASE_NAME [--parent DOCKERFILE] [--env K=V]... LAYER=HISTORY...
//   BASE_NAME: what the first layer is (label org.opencontainers.image.base.name);
//   --parent: the Dockerfile of the image this one is FROM (its configuration is inherited);
//   LAYER=HISTORY: a layer tarball and the line its history entry says made it.
import path from "node:path";
import { readDockerfileConfigFile } from "./dockerfile-config.ts";
import type { ImageSpec } from "./docker-archive.ts";

const root = path.resolve(import.meta.dirname, "../..");
/** What every Debian image sets (and the official images keep). */
const DEBIAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function imageSpec(
  dockerfile: string,
  ref: string,
  baseName: string,
  baseEnv: Record<string, string>,
  layers: [string, string][],
  parentDockerfile?: string,
): ImageSpec {
  const declared = readDockerfileConfigFile(dockerfile, parentDockerfile);
  const env = { PATH: DEBIAN_PATH, ...baseEnv, ...declared.env };
  const config: Record<string, unknown> = {
    User: declared.user,
    WorkingDir: declared.workingDir,
    Env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    ExposedPorts: Object.fromEntries(declared.exposedPorts.map((port) => [port, {}])),
    Labels: { "org.opencontainers.image.base.name": baseName, "org.opencontainers.image.source": path.relative(root, path.resolve(dockerfile)) },
  };
  if (declared.entrypoint !== null) config.Entrypoint = declared.entrypoint;
  if (declared.cmd !== null) config.Cmd = declared.cmd;
  return { ref, layers: layers.map(([layer]) => layer), config, history: layers.map(([, history]) => history) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dockerfile, ref, baseName, ...rest] = process.argv.slice(2);
  if (!dockerfile || !ref || !baseName) throw new Error("usage: image-spec.ts DOCKERFILE REF BASE_NAME [--parent DOCKERFILE] [--env K=V]... LAYER=HISTORY...");
  const baseEnv: Record<string, string> = {};
  const layers: [string, string][] = [];
  let parent: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const argument = rest[i]!;
    if (argument === "--parent") parent = rest[++i]!;
    else if (argument === "--env") {
      const pair = rest[++i]!;
      baseEnv[pair.slice(0, pair.indexOf("="))] = pair.slice(pair.indexOf("=") + 1);
    } else {
      layers.push([argument.slice(0, argument.indexOf("=")), argument.slice(argument.indexOf("=") + 1)]);
    }
  }
  process.stdout.write(`${JSON.stringify(imageSpec(dockerfile, ref, baseName, baseEnv, layers, parent))}\n`);
}
