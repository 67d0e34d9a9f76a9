import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleAssets } from "./asset-bundle.ts";
import { cachedAssetBundle } from "./asset-bundle-cache.ts";
import { createAssets } from "./assets.ts";

describe("bundleAssets", () => {
  it("bundles each gateway/web/<entry>/main.ts with the CSS it imports into content-hashed files named in the manifest", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "web-"));
    mkdirSync(path.join(root, "first"));
    mkdirSync(path.join(root, "shared"));
    writeFileSync(path.join(root, "shared", "greet.ts"), "export const greet = (name: string): string => `hello ${name}`;\n");
    writeFileSync(path.join(root, "first", "main.ts"), 'import "./page.css";\nimport { greet } from "../shared/greet.ts";\ndocument.title = greet("x");\n');
    writeFileSync(path.join(root, "first", "page.css"), "body { color: red; }\n");

    const bundle = await bundleAssets({ production: true, root });
    expect(Object.keys(bundle.manifest)).toEqual(["first"]); // shared/ has no main.ts: a library, not an entry
    const { js, css } = bundle.manifest.first!;
    expect(js).toMatch(/^first-[A-Z0-9]{8}\.js$/);
    expect(css).toEqual([expect.stringMatching(/^first-[A-Z0-9]{8}\.css$/)]);
    expect(new TextDecoder().decode(bundle.files.get(js))).toContain("hello");
    expect(new TextDecoder().decode(bundle.files.get(css[0]!))).toContain("color:red");

    // The name follows the content.
    writeFileSync(path.join(root, "first", "page.css"), "body { color: blue; }\n");
    const changed = await bundleAssets({ production: true, root });
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
        bundle: () => (builds++, bundleAssets({ production: true, root })),
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

describe("createAssets", () => {
  const assets = createAssets(
    { room: { js: "room-AAAA1111.js", css: ["room-BBBB2222.css"] } },
    new Map([
      ["room-AAAA1111.js", new TextEncoder().encode(`console.log(${JSON.stringify("x".repeat(5000))});`)],
      ["room-BBBB2222.css", new TextEncoder().encode("body{}")],
    ]),
  );
  let server: ReturnType<ReturnType<typeof express>["listen"]>;
  let base: string;
  beforeAll(async () => {
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

  it("serves known files as immutable (compressed when asked) and lets unknown names fall through", async () => {
    const script = await fetch(`${base}/assets/room-AAAA1111.js`, { headers: { "accept-encoding": "gzip" } });
    expect(script.status).toBe(200);
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("content-encoding")).toBe("gzip");
    expect(await script.text()).toContain("xxxx");
    const small = await fetch(`${base}/assets/room-BBBB2222.css`, { headers: { "accept-encoding": "br" } });
    expect(small.headers.get("content-encoding")).toBeNull(); // not worth compressing
    const unknown = await fetch(`${base}/assets/room-CCCC3333.js`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("cache-control")).toBeNull();
  });
});

describe("createAssets, compressing on the first request (gateway run from source)", () => {
  it("answers a large text file compressed with the encoding asked for, the same bytes every time, and uncompressed when none is accepted", async () => {
    const source = `console.log(${JSON.stringify("y".repeat(5000))});`;
    const assets = createAssets({ room: { js: "room-DDDD4444.js", css: [] } }, new Map([["room-DDDD4444.js", new TextEncoder().encode(source)]]), {
      compress: "on-first-request",
    });
    const app = express();
    app.use(assets.routes());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/assets/room-DDDD4444.js`;
    try {
      const first = await fetch(url, { headers: { "accept-encoding": "br" } });
      expect(first.headers.get("content-encoding")).toBe("br");
      expect(await first.text()).toBe(source);
      const again = await fetch(url, { headers: { "accept-encoding": "br" } });
      expect(await again.text()).toBe(source);
      const gzip = await fetch(url, { headers: { "accept-encoding": "gzip" } });
      expect(gzip.headers.get("content-encoding")).toBe("gzip");
      expect(await gzip.text()).toBe(source);
      const plain = await fetch(url, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect(await plain.text()).toBe(source);
    } finally {
      server.close();
    }
  });
});
