// Our patch to Connect-ES (patches/@connectrpc+*.patch, docs/decisions/0017): a call that completed
// normally aborts its signals with one shared AbortError instead of building a fresh DOMException
// per call, and the client no longer builds an unseen "sentinel completed early" ConnectError.
//
// Three things are checked here:
// - the patch still fits what is installed: the same versions (in node_modules and in the lockfile),
//   every hunk's patched text present in every file it touches, both builds (ESM and CommonJS);
// - it is in effect through the project's own server and client (startServer, internalTransport,
//   real HTTP/2 between them): a successful call builds no exception object on either side;
// - the aborts that matter still carry their reason: a client's cancellation, a deadline, an error.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createLogger } from "@svc/platform";
import { internalTransport, startServer, type RunningServer } from "@svc/platform/grpc";
import { RecordingFileService } from "@svc/proto/svc/meeting/v1/recording_pb";
import { ListEventTypesResponseSchema, WebhookService } from "@svc/proto/svc/webhook/v1/webhook_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { waitFor, within } from "../support/wait.ts";

const root = path.resolve(import.meta.dirname, "../..");
const patchDir = path.join(root, "patches");

interface PatchedFile {
  /** Relative to the repository root, e.g. node_modules/@connectrpc/connect/dist/esm/implementation.js. */
  file: string;
  /** Per hunk: the text before and after the patch (context and changed lines). */
  hunks: { before: string; after: string }[];
}

/** The packages our patch files are for, and the files and hunks each patch changes. */
function readPatches() {
  return readdirSync(patchDir)
    .filter((name) => name.endsWith(".patch"))
    .map((name) => {
      // patch-package's naming: @scope+name+version.patch
      const match = /^(@[^+]+)\+([^+]+)\+(\d+\.\d+\.\d+)\.patch$/.exec(name);
      if (!match) throw new Error(`unexpected patch file name ${name}`);
      const files: { file: string; hunks: { before: string[]; after: string[] }[] }[] = [];
      let hunk: { before: string[]; after: string[] } | undefined;
      for (const line of readFileSync(path.join(patchDir, name), "utf8").split("\n")) {
        if (line.startsWith("diff --git ")) {
          files.push({ file: line.split(" ")[2]!.replace(/^a\//, ""), hunks: [] });
          hunk = undefined;
        } else if (line.startsWith("@@")) {
          hunk = { before: [], after: [] };
          files.at(-1)!.hunks.push(hunk);
        } else if (hunk && !line.startsWith("\\")) {
          if (!line.startsWith("+")) hunk.before.push(line.slice(1));
          if (!line.startsWith("-")) hunk.after.push(line.slice(1));
        }
      }
      const patched: PatchedFile[] = files.map(({ file, hunks }) => ({
        file,
        hunks: hunks.map(({ before, after }) => ({ before: withoutTrailingBlanks(before).join("\n"), after: withoutTrailingBlanks(after).join("\n") })),
      }));
      return { patchFile: name, packageName: `${match[1]}/${match[2]}`, version: match[3]!, files: patched };
    });
}

function withoutTrailingBlanks(lines: string[]) {
  const copy = [...lines];
  while (copy.length > 0 && copy.at(-1) === "") copy.pop();
  return copy;
}

const patches = readPatches();

describe("the Connect-ES patch fits what is installed (fails when an upgrade changes what it touches)", () => {
  it("patches exactly @connectrpc/connect and @connectrpc/connect-node", () => {
    expect(patches.map((patch) => patch.packageName).sort()).toEqual(["@connectrpc/connect", "@connectrpc/connect-node"]);
  });

  it.each(patches)("$patchFile is for the version installed and locked", ({ packageName, version }) => {
    const installed = JSON.parse(readFileSync(path.join(root, "node_modules", packageName, "package.json"), "utf8")) as { version: string };
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };
    expect(installed.version, `${packageName} in node_modules`).toBe(version);
    expect(lock.packages[`node_modules/${packageName}`]?.version, `${packageName} in package-lock.json`).toBe(version);
    // No second copy of the package anywhere in the lockfile (a nested one would go unpatched).
    const copies = Object.keys(lock.packages).filter((key) => key.endsWith(`node_modules/${packageName}`));
    expect(copies).toEqual([`node_modules/${packageName}`]);
  });

  // A range (`^2.2.0`) would let a fresh install take 2.2.1, which the patch does not fit: every
  // workspace that depends on a patched package names exactly the patch's version.
  it.each(patches)("every package.json pins $packageName to exactly the patch's version", ({ packageName, version }) => {
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { dependencies?: Record<string, string> }>;
    };
    const declared = Object.entries(lock.packages)
      .filter(([key]) => !key.includes("node_modules/"))
      .map(([key]) => JSON.parse(readFileSync(path.join(root, key, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>)
      .flatMap((manifest) =>
        ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"].flatMap((field) => {
          const range = manifest[field]?.[packageName];
          return range === undefined ? [] : [`${String(manifest.name)} ${field}: ${range}`];
        }),
      );
    expect(declared.length).toBeGreaterThan(0);
    expect(declared.filter((entry) => !entry.endsWith(`: ${version}`))).toEqual([]);
  });

  it.each(patches)("$patchFile is applied: every file it touches holds its patched text, not the original", ({ files }) => {
    expect(files.length).toBeGreaterThan(0);
    for (const { file, hunks } of files) {
      const text = readFileSync(path.join(root, file), "utf8");
      for (const hunk of hunks) {
        expect(text.includes(hunk.after), `${file}: patched text missing:\n${hunk.after}`).toBe(true);
        expect(text.includes(hunk.before), `${file}: original text still there:\n${hunk.before}`).toBe(false);
      }
    }
  });

  it.each(patches)("$patchFile patches the ESM build Node loads for this project and the CommonJS build alike", ({ packageName, files }) => {
    const touched = files.map((patched) => patched.file);
    const esm = touched.filter((file) => file.includes("/dist/esm/"));
    expect(esm.length).toBeGreaterThan(0);
    expect(touched.filter((file) => file.includes("/dist/cjs/")).sort()).toEqual(esm.map((file) => file.replace("/dist/esm/", "/dist/cjs/")).sort());
    // The project is ESM: `import` resolves to dist/esm, the build the patch must reach first.
    const entry = path.relative(root, fileURLToPath(import.meta.resolve(packageName)));
    expect(entry).toBe(`node_modules/${packageName}/dist/esm/index.js`);
  });
});

/**
 * Counts the ConnectErrors built while `run` runs: ConnectError's constructor sets `this.name`,
 * which for this count goes through a setter on its prototype (then stored on the object as usual).
 */
async function connectErrorsBuiltDuring(run: () => Promise<unknown>) {
  let built = 0;
  Object.defineProperty(ConnectError.prototype, "name", {
    configurable: true,
    set(this: ConnectError, value: string) {
      built++;
      Object.defineProperty(this, "name", { value, writable: true, enumerable: true, configurable: true });
    },
  });
  try {
    await run();
  } finally {
    delete (ConnectError.prototype as { name?: string }).name;
  }
  return built;
}

/** Resolves with the signal's reason once it is aborted (the request signal aborts when the HTTP/2 stream has closed). */
function abortReason(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  const aborted = new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));
  return within(aborted, 5_000).then((reason) => {
    if (reason === "pending") throw new Error("the signal was not aborted within 5 s");
    return reason;
  });
}

/** What connect-node's adapter hands each handler besides the public HandlerContext: the request's own signal. */
function requestSignalOf(context: HandlerContext): AbortSignal {
  const signal = (context as HandlerContext & { requestSignal?: AbortSignal }).requestSignal;
  if (!(signal instanceof AbortSignal)) throw new Error("the handler context no longer carries requestSignal: re-check the patch against the upgrade");
  return signal;
}

describe("a Connect call through the project's own server and client (HTTP/2 between them)", () => {
  let server: RunningServer;
  let baseUrl: string;
  /** The handler context of each call the server handled, in order. */
  const contexts: HandlerContext[] = [];
  /** The signal Connect's client gave each call (run-call's), seen by an interceptor. */
  const clientSignals: AbortSignal[] = [];
  const captureSignal: Interceptor = (next) => (request) => {
    clientSignals.push(request.signal);
    return next(request);
  };

  beforeAll(async () => {
    server = await startServer({
      name: "connect-patch-test",
      host: "127.0.0.1",
      port: 0,
      logger: createLogger("connect-patch-test", "silent"),
      services: [WebhookService, RecordingFileService],
      routes: (router) => {
        // A server stream (the streaming handlers' teardown): two chunks, or, for "wait", one chunk
        // and then nothing until the call is aborted.
        router.service(RecordingFileService, {
          async *readRecordingFile({ token }, context) {
            contexts.push(context);
            yield { part: { case: "chunk", value: new Uint8Array([1]) } };
            if (token === "wait") throw await abortReason(context.signal);
            yield { part: { case: "chunk", value: new Uint8Array([2]) } };
          },
        });
        router.service(WebhookService, {
          listEventTypes: (_request, context) => {
            contexts.push(context);
            return create(ListEventTypesResponseSchema, { eventTypes: [{ type: "meeting.ended", description: "A meeting ended." }] });
          },
          // "wait": answers only when the call is aborted (by the client or a deadline); "fail": an error.
          deleteSubscription: async ({ webhookId }, context) => {
            contexts.push(context);
            if (webhookId === "fail") throw new ConnectError("no such subscription", Code.NotFound);
            throw await abortReason(context.signal);
          },
        });
      },
      isServing: async () => true,
    });
    baseUrl = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    contexts.length = 0;
    clientSignals.length = 0;
  });

  /** internalTransport's settings, plus an interceptor that keeps each call's signal. */
  const observedClient = () =>
    createClient(
      WebhookService,
      createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, acceptCompression: [], interceptors: [captureSignal] }),
    );

  it("builds no ConnectError on either side for successful calls (the client's sentinel built one per call)", async () => {
    const client = createClient(WebhookService, internalTransport(baseUrl));
    await client.listEventTypes({}); // the HTTP/2 session is up before counting
    const built = await connectErrorsBuiltDuring(async () => {
      for (let i = 0; i < 20; i++) expect((await client.listEventTypes({})).eventTypes).toHaveLength(1);
      // Both sides' teardown is done once every request signal has closed.
      await Promise.all(contexts.map((context) => abortReason(requestSignalOf(context))));
    });
    expect(built).toBe(0);
  });

  it("aborts every completed call's signals with one shared AbortError, not a fresh DOMException per call", async () => {
    const client = observedClient();
    for (let i = 0; i < 3; i++) await client.listEventTypes({});
    expect(contexts).toHaveLength(3);
    expect(clientSignals).toHaveLength(3);
    const kinds = {
      "server handler context": await Promise.all(contexts.map((context) => abortReason(context.signal))),
      "server request (node-universal-handler)": await Promise.all(contexts.map((context) => abortReason(requestSignalOf(context)))),
      "client call (run-call)": await Promise.all(clientSignals.map((signal) => abortReason(signal))),
    };
    for (const [kind, reasons] of Object.entries(kinds)) {
      // What a listener saw before the patch: a DOMException named AbortError, with this message.
      expect(reasons[0], kind).toBeInstanceOf(DOMException);
      expect((reasons[0] as DOMException).name, kind).toBe("AbortError");
      expect((reasons[0] as DOMException).message, kind).toBe("This operation was aborted");
      // The same object each time: nothing built per call.
      expect(reasons[1], kind).toBe(reasons[0]);
      expect(reasons[2], kind).toBe(reasons[0]);
    }
  });

  it("ends a completed server stream with the same shared AbortError, and a cancelled one with CANCELED", async () => {
    const transport = createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, acceptCompression: [], interceptors: [captureSignal] });
    const client = createClient(RecordingFileService, transport);
    const chunks = [];
    for await (const message of client.readRecordingFile({ token: "whole" })) chunks.push(message.part.value);
    expect(chunks).toEqual([new Uint8Array([1]), new Uint8Array([2])]);
    await createClient(WebhookService, transport).listEventTypes({});
    const [streamReason, unaryReason] = await Promise.all(contexts.map((context) => abortReason(context.signal)));
    expect(streamReason).toBeInstanceOf(DOMException);
    expect(streamReason).toBe(unaryReason);
    expect(await abortReason(clientSignals[0]!)).toBe(await abortReason(clientSignals[1]!));

    // Cancelled by the client after the first chunk: the handler sees CANCELED, the client too.
    contexts.length = 0;
    const cancel = new AbortController();
    const read = async () => {
      for await (const message of client.readRecordingFile({ token: "wait" }, { signal: cancel.signal })) {
        expect(message.part.case).toBe("chunk");
        cancel.abort();
      }
    };
    const error = await read().then(
      () => undefined,
      (caught: unknown) => ConnectError.from(caught),
    );
    expect(error?.code).toBe(Code.Canceled);
    const serverReason = await abortReason(contexts[0]!.signal);
    expect(serverReason).toBeInstanceOf(ConnectError);
    expect((serverReason as ConnectError).code).toBe(Code.Canceled);
  });

  it("still aborts with the client's cancellation on both sides", async () => {
    const client = observedClient();
    const cancel = new AbortController();
    const call = client.deleteSubscription({ webhookId: "wait" }, { signal: cancel.signal });
    await waitFor(() => contexts.length > 0, 10_000, "the call reached the handler");
    cancel.abort();
    const error = ConnectError.from(await call.catch((caught: unknown) => caught));
    expect(error.code).toBe(Code.Canceled);
    const serverReason = await abortReason(contexts[0]!.signal);
    expect(serverReason).toBeInstanceOf(ConnectError);
    expect((serverReason as ConnectError).code).toBe(Code.Canceled);
    const requestReason = await abortReason(requestSignalOf(contexts[0]!));
    expect((requestReason as ConnectError).code).toBe(Code.Canceled);
    // The client call's signal carries the caller's own reason, as the caller aborted with it.
    expect(await abortReason(clientSignals[0]!)).toBe(cancel.signal.reason);
  });

  it("still aborts with DEADLINE_EXCEEDED when the server's deadline for a call passes", async () => {
    // The deadline as the Connect protocol sends it, without one on the client: only the server's counts.
    const client = observedClient();
    const error = ConnectError.from(
      await client.deleteSubscription({ webhookId: "wait" }, { headers: { "connect-timeout-ms": "300" } }).catch((caught: unknown) => caught),
    );
    expect(error.code).toBe(Code.DeadlineExceeded);
    const serverReason = await abortReason(contexts[0]!.signal);
    expect(serverReason).toBeInstanceOf(ConnectError);
    expect((serverReason as ConnectError).code).toBe(Code.DeadlineExceeded);
    const clientReason = await abortReason(clientSignals[0]!);
    expect((clientReason as ConnectError).code).toBe(Code.DeadlineExceeded);
  });

  it("still aborts with DEADLINE_EXCEEDED when the client's deadline passes, and the server's call with an error", async () => {
    const client = observedClient();
    const error = ConnectError.from(await client.deleteSubscription({ webhookId: "wait" }, { timeoutMs: 300 }).catch((caught: unknown) => caught));
    expect(error.code).toBe(Code.DeadlineExceeded);
    const clientReason = await abortReason(clientSignals[0]!);
    expect((clientReason as ConnectError).code).toBe(Code.DeadlineExceeded);
    // Whichever side's timer fires first: the server's own deadline, or the client's reset of the
    // stream (connect-node resets a stream with INTERNAL_ERROR for any reason but a cancellation).
    const serverReason = await abortReason(contexts[0]!.signal);
    expect(serverReason).toBeInstanceOf(ConnectError);
    expect([Code.DeadlineExceeded, Code.Internal]).toContain((serverReason as ConnectError).code);
  });

  it("still aborts with the handler's error when a call fails, on both sides", async () => {
    const client = observedClient();
    const error = ConnectError.from(await client.deleteSubscription({ webhookId: "fail" }).catch((caught: unknown) => caught));
    expect(error.code).toBe(Code.NotFound);
    const serverReason = await abortReason(contexts[0]!.signal);
    expect((serverReason as ConnectError).code).toBe(Code.NotFound);
    expect((serverReason as ConnectError).rawMessage).toBe("no such subscription");
    const clientReason = await abortReason(clientSignals[0]!);
    expect((clientReason as ConnectError).code).toBe(Code.NotFound);
  });
});
