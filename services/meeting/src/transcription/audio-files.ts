import path from "node:path";
import type { LeasedJob } from "../db/transcription-jobs.ts";

/** An audio key is one file name the meeting service made (`<uuid>.<ext>`), never a path that could leave the folder. */
const SAFE_AUDIO_KEY = /^[0-9a-f-]{36}\.(ogg|mp4|m4a|wav)$/;

/**
 * Where a job's audio is for the worker: a file in the recordings folder. Audio in S3 is not
 * read yet (docs/transcription.md, "What is not built yet"): such a job fails as unreadable
 * rather than waiting for ever.
 */
export function filesystemAudio(dir: string): (job: LeasedJob) => string {
  return (job) => {
    if (job.storage !== "filesystem") throw new Error(`audio in ${job.storage} storage cannot be read by this worker yet`);
    if (!SAFE_AUDIO_KEY.test(job.objectKey)) throw new Error(`not an audio key: ${JSON.stringify(job.objectKey)}`);
    return path.join(dir, job.objectKey);
  };
}
