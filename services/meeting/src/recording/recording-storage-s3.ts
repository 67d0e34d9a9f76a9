import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { AwsClient } from "aws4fetch";
import { DirectFileOutput, EncodedFileOutput, EncodedFileType, S3Upload } from "livekit-server-sdk";
import type { RecordingStorage } from "./recording-storage.ts";

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  /** This service's pair: it reads, measures and deletes recordings. */
  accessKeyId: string;
  secretAccessKey: string;
  /** The recorder's pair, handed to it with each recording: it uploads, and should be allowed nothing else. */
  upload: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
}

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Recordings in an S3-compatible bucket: the recorder uploads the file itself (LiveKit Egress's
 * S3Upload, with its own upload-only key pair), and this service reads it back with ranged GETs
 * and deletes it with another pair, signing each request (SigV4, aws4fetch).
 */
export function s3RecordingStorage(settings: S3Settings): RecordingStorage {
  const client = new AwsClient({ accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, region: settings.region, service: "s3" });
  const objectUrl = (key: string) => {
    const encoded = key.split("/").map(encodeURIComponent).join("/");
    if (settings.forcePathStyle) return `${settings.endpoint}/${encodeURIComponent(settings.bucket)}/${encoded}`;
    const url = new URL(settings.endpoint);
    url.hostname = `${settings.bucket}.${url.hostname}`;
    return `${url.origin}/${encoded}`;
  };
  const send = (method: string, key: string, headers: Record<string, string> = {}) =>
    client.fetch(objectUrl(key), { method, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const failure = async (what: string, response: Response) =>
    new Error(`S3 ${what} answered ${response.status}: ${(await response.text().catch(() => "")).slice(0, 200)}`);

  const upload = () =>
    new S3Upload({
      accessKey: settings.upload.accessKeyId,
      secret: settings.upload.secretAccessKey,
      region: settings.region,
      endpoint: settings.endpoint,
      bucket: settings.bucket,
      forcePathStyle: settings.forcePathStyle,
    });

  return {
    kind: "s3",
    output: (key) => new EncodedFileOutput({ fileType: EncodedFileType.MP4, filepath: key, output: { case: "s3", value: upload() } }),
    trackOutput: (key) => new DirectFileOutput({ filepath: key, output: { case: "s3", value: upload() } }),
    async size(key) {
      const response = await send("HEAD", key);
      if (response.status === 404) return undefined;
      if (!response.ok) throw await failure("HEAD", response);
      return Number(response.headers.get("content-length"));
    },
    async read(key, range) {
      const response = await send("GET", key, range ? { range: `bytes=${range.start}-${range.end}` } : {});
      if (!response.ok || !response.body) throw await failure("GET", response);
      return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    },
    async remove(key) {
      // Egress uploads `<key>.json` (the recording's EgressInfo: room, times, our object key) beside
      // the file: it goes with it.
      for (const object of [key, `${key}.json`]) {
        const response = await send("DELETE", object);
        if (!response.ok && response.status !== 404) throw await failure("DELETE", response);
      }
    },
  };
}
