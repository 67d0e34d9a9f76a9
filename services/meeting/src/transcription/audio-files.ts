import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { LeasedJob } from "../db/transcription-jobs.ts";
import type { RecordingStorage } from "../recording/recording-storage.ts";

/** An audio key is one file name the meeting service made (`<uuid>.<ext>`), never a path that could leave the folder. */
const SAFE_AUDIO_KEY = /^[0-9a-f-]{36}\.(ogg|mp4|m4a|wav)$/;

/** A job's audio as a file the Python worker can open; `release` deletes what was fetched for it. */
export interface LocalAudio {
  path: string;
  release: () => Promise<void>;
}

/** Audio that no retry can read (not an audio key, not in the bucket, in a storage this worker is not given). */
export class AudioUnreadable extends Error {}

/**
 * Where a job's audio is for the worker. Filesystem storage: the file in the recordings folder,
 * read in place. S3: the object, streamed to a temporary file for the piece and deleted after it
 * (one file per piece under way, so at most TRANSCRIBER_CONCURRENCY tracks on the disk at once);
 * the Python worker then seeks in it as in any file. A failed download is tried again like a
 * failed piece; an object that is not there fails the job at once.
 */
export function recordingAudio(options: { dir: string; s3?: RecordingStorage | undefined }): (job: LeasedJob) => Promise<LocalAudio> {
  return async (job) => {
    if (!SAFE_AUDIO_KEY.test(job.objectKey)) throw new AudioUnreadable(`not an audio key: ${JSON.stringify(job.objectKey)}`);
    if (job.storage === "filesystem") return { path: path.join(options.dir, job.objectKey), release: async () => undefined };
    if (!options.s3) throw new AudioUnreadable("the audio is in S3, and this worker's RECORDING_STORAGE is not s3");
    if ((await options.s3.size(job.objectKey)) === undefined) throw new AudioUnreadable("the audio is not in the bucket");
    const folder = await mkdtemp(path.join(os.tmpdir(), "svc-transcriber-"));
    const release = () => rm(folder, { recursive: true, force: true });
    try {
      const file = path.join(folder, job.objectKey);
      await pipeline(await options.s3.read(job.objectKey), createWriteStream(file));
      return { path: file, release };
    } catch (error) {
      await release();
      throw error;
    }
  };
}
