import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PieceFailed, transcribePiece } from "./transcriber-process.ts";

// How the worker reads the Python program's answer: its JSON, or its exit status as a reason code.
// A stand-in executable plays the program here (the real one runs in test/transcription/).
const dir = mkdtempSync(path.join(os.tmpdir(), "svc-transcriber-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function standIn(name: string, script: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
  return file;
}

const options = (python: string) => ({ python, pieceSeconds: 300, threads: 2 });

describe("transcribePiece", () => {
  it("passes the piece's start and bounds and returns the printed segments and next start", async () => {
    const python = standIn(
      "prints",
      `echo "$*" > "${dir}/args"; echo '{"start":30,"end":330,"keepUntil":300,"nextStart":301.5,"segments":[{"start":31,"end":33,"text":"hello","words":[]}]}'`,
    );
    const piece = await transcribePiece(options(python), "/audio/track.ogg", 30);
    expect(piece).toEqual({ nextStart: 301.5, segments: [{ start: 31, end: 33, text: "hello", words: [] }] });
    expect(readFileSync(path.join(dir, "args"), "utf8").trim()).toBe(
      "-m svc_transcriber piece /audio/track.ogg --start 30 --max-seconds 300 --lookahead 30 --threads 2",
    );
  });

  it.each([
    [3, "model_refused", true],
    [4, "audio_unreadable", true],
    [1, "transcriber_failed", false],
    [137, "transcriber_failed", false],
  ] as const)("exit status %i is %s (permanent: %s)", async (status, code, permanent) => {
    const python = standIn(`exits-${status}`, `echo "the reason" >&2; exit ${status}`);
    const failure = await transcribePiece(options(python), "/audio/track.ogg", 0).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PieceFailed);
    expect(failure).toMatchObject({ code, permanent });
    expect((failure as PieceFailed).message).toContain("the reason");
  });

  it("a transcriber killed by a signal (out of memory) is a failure worth retrying", async () => {
    const python = standIn("killed", "kill -9 $$");
    await expect(transcribePiece(options(python), "/audio/track.ogg", 0)).rejects.toMatchObject({ code: "transcriber_failed", permanent: false });
  });

  it("an answer that is not a piece is a failure worth retrying", async () => {
    const python = standIn("garbled", "echo 'not json'");
    await expect(transcribePiece(options(python), "/audio/track.ogg", 0)).rejects.toMatchObject({ code: "transcriber_failed", permanent: false });
  });
});
