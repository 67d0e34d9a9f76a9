import { createReadStream } from "node:fs";
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { DirectFileOutput, EncodedFileOutput, EncodedFileType } from "livekit-server-sdk";
import type { RecordingStorage } from "./recording-storage.ts";

/** A key is one file name this service made (`<uuid>.mp4`, a speaker track's `<uuid>.ogg`): never a path that could leave the folder. */
const SAFE_KEY = /^[0-9a-f-]{36}\.(mp4|ogg)$/;

function fileOf(dir: string, key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`not a recording key: ${JSON.stringify(key)}`);
  return path.join(dir, key);
}

/**
 * Recordings in a folder (RECORDING_DIR): the recorder writes `<egressDir>/<key>`, which is the
 * same folder as this service's `dir` seen from the recorder (the same path when both run on one
 * machine; a shared volume in Kubernetes).
 */
export function filesystemRecordingStorage(options: { dir: string; egressDir: string }): RecordingStorage & { prepare(): Promise<void> } {
  return {
    kind: "filesystem",
    async prepare() {
      await mkdir(options.dir, { recursive: true, mode: 0o750 });
    },
    output: (key) => new EncodedFileOutput({ fileType: EncodedFileType.MP4, filepath: path.posix.join(options.egressDir, key) }),
    trackOutput: (key) => new DirectFileOutput({ filepath: path.posix.join(options.egressDir, key) }),
    async size(key) {
      try {
        const stats = await stat(fileOf(options.dir, key));
        return stats.isFile() ? stats.size : undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    read: async (key, range) => createReadStream(fileOf(options.dir, key), range ? { start: range.start, end: range.end } : {}),
    async remove(key) {
      await rm(fileOf(options.dir, key), { force: true });
      // egress writes `<file>.json` (the recording's EgressInfo) beside it.
      await rm(`${fileOf(options.dir, key)}.json`, { force: true });
    },
  };
}
