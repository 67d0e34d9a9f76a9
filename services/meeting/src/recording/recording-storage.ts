import type { Readable } from "node:stream";
import type { DirectFileOutput, EncodedFileOutput } from "livekit-server-sdk";
import type { RecordingStorageKind } from "../recording-store.ts";

/** The bytes of a file to serve: inclusive range, as HTTP's Content-Range counts. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where recording files live: the recorder (LiveKit Egress) writes them, this service reads,
 * measures and deletes them. Filesystem (recording-storage-filesystem.ts) or an S3-compatible
 * bucket (recording-storage-s3.ts); a recording remembers which (`storage`) and its key.
 */
export interface RecordingStorage {
  readonly kind: RecordingStorageKind;
  /** What to ask the recorder to write the file `key` to. */
  output(key: string): EncodedFileOutput;
  /** What to ask the recorder to write one track to, as it comes (a speaker's Opus audio in OGG: `<uuid>.ogg`). */
  trackOutput(key: string): DirectFileOutput;
  /** The file's size in bytes; undefined when it does not exist. */
  size(key: string): Promise<number | undefined>;
  /** A stream of the file's bytes in `range` (the whole file without one). */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the file; nothing when it is already gone. */
  remove(key: string): Promise<void>;
}
