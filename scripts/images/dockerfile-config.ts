// Reads what a Dockerfile's final stage declares about the image it makes (user, working
// directory, environment, entry point and command, exposed ports, the base image with its build
// arguments resolved), parsed by dockerfile-ast, and prints it as JSON for scripts/build-images.
// Only instructions that set image metadata are read; RUN and COPY are the build script's job.
// A Dockerfile FROM another of ours (deploy/transcriber/Dockerfile is FROM the services' image)
// starts from that image's configuration, as Docker's FROM does: `--parent` names its Dockerfile.
//
// Usage: scripts/node scripts/images/dockerfile-config.ts DOCKERFILE [--parent PARENT_DOCKERFILE]
import { DockerfileParser, type Instruction } from "dockerfile-ast";
import { readFileSync } from "node:fs";

export interface DockerfileConfig {
  /** The final stage's FROM, build arguments resolved (for example node:24.21.0-bookworm-slim). */
  baseImage: string;
  user: string;
  workingDir: string;
  env: Record<string, string>;
  entrypoint: string[] | null;
  cmd: string[] | null;
  exposedPorts: string[];
  /** The Debian packages the final stage's RUN instructions install with `apt-get install`. */
  aptPackages: string[];
}

/** The package names after each `apt-get install` of a RUN line (options skipped, up to the next `&&`, `;` or `|`). */
export function aptInstalls(run: string): string[] {
  const packages: string[] = [];
  for (const command of run.replace(/\\\n/g, " ").split(/&&|\|\||;|\|/)) {
    const words = command.trim().split(/\s+/);
    const apt = words.findIndex((word) => /(^|\/)apt(-get)?$/.test(word));
    if (apt < 0 || words[words.indexOf("install", apt)] === undefined) continue;
    packages.push(...words.slice(words.indexOf("install", apt) + 1).filter((word) => !word.startsWith("-")));
  }
  return packages;
}

/** Exec-form (JSON array) arguments; the shell form is refused: the chart runs exec-form commands. */
function execForm(instruction: Instruction): string[] {
  const strings = (instruction as unknown as { getJSONStrings(): { getJSONValue(): string }[] }).getJSONStrings();
  if (strings.length === 0) throw new Error(`${instruction.getKeyword()} must use the exec (JSON array) form`);
  return strings.map((s) => s.getJSONValue());
}

/**
 * What the final stage declares. With `parent` (the configuration of the image it is FROM), the
 * image starts from the parent's user, working directory, environment, ports, entry point and
 * command, as Docker's FROM does (an ENTRYPOINT set here clears an inherited CMD); its own
 * instructions apply on top. `aptPackages` are only this file's.
 */
export function readDockerfileConfig(text: string, parent?: DockerfileConfig): DockerfileConfig {
  const dockerfile = DockerfileParser.parse(text);
  const args = new Map<string, string>();
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    if (property?.getValue() != null) args.set(property.getName(), property.getValue()!);
  }
  const resolve = (value: string) => value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string, b: string) => args.get(a ?? b) ?? "");
  const stages = dockerfile.getFROMs();
  const finalFrom = stages.at(-1);
  if (!finalFrom) throw new Error("the Dockerfile has no FROM");
  const finalLine = finalFrom.getRange().start.line;
  const config: DockerfileConfig = {
    user: parent?.user ?? "",
    workingDir: parent?.workingDir ?? "/",
    env: { ...parent?.env },
    entrypoint: parent?.entrypoint ?? null,
    cmd: parent?.cmd ?? null,
    exposedPorts: [...(parent?.exposedPorts ?? [])],
    baseImage: resolve(finalFrom.getImage() ?? ""),
    aptPackages: [],
  };
  let cmdDeclared = false;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getRange().start.line <= finalLine) continue;
    const keyword = instruction.getKeyword();
    if (keyword === "USER") config.user = instruction.getArgumentsContent() ?? "";
    else if (keyword === "WORKDIR") config.workingDir = instruction.getArgumentsContent() ?? "/";
    else if (keyword === "RUN") config.aptPackages.push(...aptInstalls(instruction.getArgumentsContent() ?? ""));
    else if (keyword === "ENTRYPOINT") {
      config.entrypoint = execForm(instruction);
      if (!cmdDeclared) config.cmd = null;
    } else if (keyword === "CMD") {
      config.cmd = execForm(instruction);
      cmdDeclared = true;
    } else if (keyword === "EXPOSE") {
      for (const port of instruction.getArguments()) {
        const exposed = port.getValue().includes("/") ? port.getValue() : `${port.getValue()}/tcp`;
        if (!config.exposedPorts.includes(exposed)) config.exposedPorts.push(exposed);
      }
    } else if (keyword === "ENV") {
      for (const property of (instruction as unknown as { getProperties(): { getName(): string; getValue(): string | null }[] }).getProperties()) {
        config.env[property.getName()] = property.getValue() ?? "";
      }
    }
  }
  return config;
}

/** A Dockerfile's configuration, from its parent's (`parentFile`, itself read the same way) when it has one. */
export function readDockerfileConfigFile(file: string, parentFile?: string): DockerfileConfig {
  return readDockerfileConfig(readFileSync(file, "utf8"), parentFile === undefined ? undefined : readDockerfileConfigFile(parentFile));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, option, parentFile] = process.argv.slice(2);
  if (!file || (option !== undefined && (option !== "--parent" || !parentFile)))
    throw new Error("usage: dockerfile-config.ts DOCKERFILE [--parent PARENT_DOCKERFILE]");
  process.stdout.write(`${JSON.stringify(readDockerfileConfigFile(file, parentFile), null, 2)}\n`);
}
