import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedDocument } from "../../scripts/client/render.ts";

/**
 * @svc/client as others install it: `npm pack` gives a package with its compiled code, its types,
 * the README, the licence and the OpenAPI document, versioned as the API is; and the README's
 * examples (a Cal.com video adapter among them) compile against the packed types, the way a
 * project that installed the package compiles them.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const clientDir = path.join(root, "client");
let work: string;
let packed: { files: string[]; version: string; name: string };

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "svc-client-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: clientDir });
  const [answer] = JSON.parse(stdout) as { filename: string; version: string; name: string; files: { path: string }[] }[];
  packed = { files: answer!.files.map((file) => file.path), version: answer!.version, name: answer!.name };
  // Unpacked where npm would install it: consumer/node_modules/@svc/client.
  const installed = path.join(work, "consumer/node_modules/@svc/client");
  await mkdir(installed, { recursive: true });
  await run("tar", ["-xzf", path.join(work, answer!.filename), "-C", installed, "--strip-components=1"]);
  // The package's one dependency, as npm would install it beside it.
  await symlink(path.join(root, "node_modules/openapi-fetch"), path.join(work, "consumer/node_modules/openapi-fetch"));
}, 120_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("@svc/client, packed", () => {
  it("holds its code, its types, the README, the licence and the OpenAPI document, and is not private", async () => {
    expect(packed.name).toBe("@svc/client");
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "README.md", "LICENSE", "openapi.json", "package.json"])
      expect(packed.files).toContain(file);
    expect(packed.files.filter((file) => file.startsWith("src/") || file.endsWith(".test.ts"))).toEqual([]);
    const manifest = JSON.parse(await readFile(path.join(work, "consumer/node_modules/@svc/client/package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe("Apache-2.0");
    expect(await readFile(path.join(work, "consumer/node_modules/@svc/client/LICENSE"), "utf8")).toBe(await readFile(path.join(root, "LICENSE"), "utf8"));
  });

  it("is versioned as the API is: the OpenAPI document's info.version", () => {
    expect(packed.version, "client/package.json's version must be the API's (gateway/src/openapi/document.ts)").toBe(servedDocument().info.version);
  });

  it("the README's examples compile against the packed types, and a wrong call does not", async () => {
    const readme = await readFile(path.join(work, "consumer/node_modules/@svc/client/README.md"), "utf8");
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(readme).toContain("svcVideoApiAdapter");
    const consumer = path.join(work, "consumer");
    await writeFile(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    await writeFile(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          noEmit: true,
          lib: ["es2022", "dom"],
          types: ["node"],
          typeRoots: [path.join(root, "node_modules/@types")],
        },
        include: ["*.ts"],
      }),
    );
    await Promise.all(examples.map((code, index) => writeFile(path.join(consumer, `example-${index}.ts`), code)));
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    await expect(run(process.execPath, [tsc, "-p", consumer])).resolves.toBeDefined();

    // The types are real: a call to a path the API does not have is refused by the compiler.
    await writeFile(
      path.join(consumer, "wrong-call.ts"),
      'import { createSvcClient } from "@svc/client";\nawait createSvcClient({ origin: "x" }).POST("/meetings", {});\n',
    );
    const refused = await run(process.execPath, [tsc, "-p", consumer]).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    expect(refused).toContain('"/meetings"');
  });
});
