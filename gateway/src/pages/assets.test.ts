import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleAssets } from "./asset-bundle.ts";
import { cachedAssetBundle } from "./asset-bundle-cache.ts";
import { createAssets } from "./assets.ts";
import { precompress } from "./asset-compression.ts";

describe("bundleAssets", () => {
  it("bundles each gateway/web/<entry>/main.ts with the CSS it imports into minified, content-hashed files named in the manifest", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "web-"));
    mkdirSync(path.join(root, "first"));
    mkdirSync(path.join(root, "shared"));
    writeFileSync(path.join(root, "shared", "greet.ts"), "export const greet = (name: string): string => `hello ${name}`;\n");
    writeFileSync(
      path.join(root, "first", "main.ts"),
      'import "./page.css";\nimport { greet } from "../shared/greet.ts";\nconst someLongLocalName = greet("x");\ndocument.title = someLongLocalName;\n',
    );
    writeFileSync(path.join(root, "first", "page.css"), "body { color: red; }\n");

    const bundle = await bundleAssets({ root });
    expect(Object.keys(bundle.manifest)).toEqual(["first"]); // shared/ has no main.ts: a library, not an entry
    const { js, css } = bundle.manifest.first!;
    expect(js).toMatch(/^first-[A-Z0-9]{8}\.js$/);
    expect(css).toEqual([expect.stringMatching(/^first-[A-Z0-9]{8}\.css$/)]);
    expect(new TextDecoder().decode(bundle.files.get(js))).toContain("hello");
    expect(new TextDecoder().decode(bundle.files.get(css[0]!))).toContain("color:red");
    // Minified (local names shortened), with the source map linked beside it, not inline.
    const script = new TextDecoder().decode(bundle.files.get(js));
    expect(script).not.toContain("someLongLocalName");
    expect(script.trimEnd().endsWith(`//# sourceMappingURL=${js}.map`)).toBe(true);
    expect(JSON.parse(new TextDecoder().decode(bundle.files.get(`${js}.map`)))).toMatchObject({
      version: 3,
      names: expect.arrayContaining(["someLongLocalName"]),
    });

    // The name follows the content.
    writeFileSync(path.join(root, "first", "page.css"), "body { color: blue; }\n");
    const changed = await bundleAssets({ root });
    expect(changed.manifest.first!.css[0]).not.toBe(css[0]);
  });
});

describe("cachedAssetBundle (a gateway run from source)", () => {
  it("reuses the last bundle while every file the bundler read is unchanged, and bundles again after any edit", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "web-"));
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), "asset-cache-")), "cache");
    mkdirSync(path.join(root, "page"));
    mkdirSync(path.join(root, "shared"));
    writeFileSync(path.join(root, "shared", "words.ts"), 'export const word = "first";\n');
    writeFileSync(path.join(root, "page", "main.ts"), 'import { word } from "../shared/words.ts";\ndocument.title = word;\n');
    const configuration = path.join(root, "bundler-configuration.txt");
    writeFileSync(configuration, "v1");
    let builds = 0;
    const load = () =>
      cachedAssetBundle({
        dir,
        entries: ["page"],
        extraInputs: [configuration],
        bundle: () => (builds++, bundleAssets({ root })),
        onCacheError: (error) => {
          throw error;
        },
      });
    const text = (bundle: Awaited<ReturnType<typeof load>>["bundle"]) => new TextDecoder().decode(bundle.files.get(bundle.manifest.page!.js));

    const first = await load();
    expect([first.reused, builds]).toEqual([false, 1]);
    const again = await load();
    expect([again.reused, builds]).toEqual([true, 1]);
    expect(again.bundle.manifest).toEqual(first.bundle.manifest);
    expect(text(again.bundle)).toBe(text(first.bundle));

    // An imported file (not an entry) changes: bundled again, with the new content.
    writeFileSync(path.join(root, "shared", "words.ts"), 'export const word = "second";\n');
    const edited = await load();
    expect([edited.reused, builds]).toEqual([false, 2]);
    expect(text(edited.bundle)).toContain("second");
    // The bundler's configuration changes: bundled again.
    writeFileSync(configuration, "v2");
    expect((await load()).reused).toBe(false);
    expect((await load()).reused).toBe(true);
    expect(builds).toBe(3);
  });
});

describe("precompress", () => {
  it("adds a brotli and a gzip variant of each text file over 1 KB, and none of small or binary files", async () => {
    const large = new TextEncoder().encode(`console.log(${JSON.stringify("z".repeat(5000))});`);
    const files = await precompress(
      new Map([
        ["room-AAAA1111.js", large],
        ["room-AAAA1111.js.map", large],
        ["room-BBBB2222.css", new TextEncoder().encode("body{}")],
        ["logo-CCCC3333.png", new Uint8Array(5000)],
      ]),
    );
    expect([...files.keys()].sort()).toEqual([
      "logo-CCCC3333.png",
      "room-AAAA1111.js",
      "room-AAAA1111.js.br",
      "room-AAAA1111.js.gz",
      "room-AAAA1111.js.map",
      "room-AAAA1111.js.map.br",
      "room-AAAA1111.js.map.gz",
      "room-BBBB2222.css",
    ]);
    expect(brotliDecompressSync(files.get("room-AAAA1111.js.br")!)).toEqual(Buffer.from(large));
    expect(gunzipSync(files.get("room-AAAA1111.js.gz")!)).toEqual(Buffer.from(large));
    expect(files.get("room-AAAA1111.js.br")!.byteLength).toBeLessThan(large.byteLength / 10);
  });
});

describe("createAssets", () => {
  const source = `console.log(${JSON.stringify("x".repeat(5000))});`;
  let assets: ReturnType<typeof createAssets>;
  let server: ReturnType<ReturnType<typeof express>["listen"]>;
  let base: string;
  beforeAll(async () => {
    assets = createAssets(
      { room: { js: "room-AAAA1111.js", css: ["room-BBBB2222.css"] } },
      await precompress(
        new Map([
          ["room-AAAA1111.js", new TextEncoder().encode(source)],
          ["room-BBBB2222.css", new TextEncoder().encode("body{}")],
        ]),
      ),
    );
    const app = express();
    app.use(assets.routes());
    app.use((_req, res) => void res.status(404).send("not found"));
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => void server.close());

  it("writes the entry's style sheet and module script tags, or only the style sheet", () => {
    expect(assets.tags("room").value).toBe(
      '<link rel="stylesheet" href="/assets/room-BBBB2222.css">\n<script type="module" src="/assets/room-AAAA1111.js"></script>',
    );
    expect(assets.tags("room", { styleOnly: true }).value).toBe('<link rel="stylesheet" href="/assets/room-BBBB2222.css">\n');
    expect(() => assets.tags("nope")).toThrow(/no browser asset entry "nope"/);
  });

  it("serves known files as immutable, as the build's compressed variant the request accepts, and lets unknown names fall through", async () => {
    for (const [asked, encoding] of [
      ["br, gzip", "br"],
      ["gzip", "gzip"],
      ["gzip;q=1, br;q=0.5", "gzip"],
      ["identity", null],
    ] as const) {
      const script = await fetch(`${base}/assets/room-AAAA1111.js`, { headers: { "accept-encoding": asked } });
      expect(script.status).toBe(200);
      expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(script.headers.get("vary")).toBe("Accept-Encoding");
      expect(script.headers.get("content-encoding"), asked).toBe(encoding);
      expect(await script.text()).toBe(source); // fetch() decompresses
    }
    const small = await fetch(`${base}/assets/room-BBBB2222.css`, { headers: { "accept-encoding": "br" } });
    expect(small.headers.get("content-encoding")).toBeNull(); // not worth compressing
    // The variants are how a file travels, not addresses of their own.
    for (const name of ["room-AAAA1111.js.br", "room-AAAA1111.js.gz", "room-CCCC3333.js"]) {
      const unknown = await fetch(`${base}/assets/${name}`);
      expect(unknown.status, name).toBe(404);
      expect(unknown.headers.get("cache-control"), name).toBeNull();
    }
  });
});
