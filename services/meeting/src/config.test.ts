import { parseConfig } from "@svc/platform";
import { describe, expect, it } from "vitest";
import { configSchema } from "./config.ts";

const base = { DATABASE_URL: "postgres://svc:svc@127.0.0.1:5432/svc" };
const s3 = {
  RECORDING_STORAGE: "s3",
  RECORDING_S3_ENDPOINT: "https://s3.example.com",
  RECORDING_S3_BUCKET: "svc-recordings",
  RECORDING_S3_ACCESS_KEY_ID: "meeting-key",
  RECORDING_S3_SECRET_ACCESS_KEY: "meeting-secret",
};
const upload = { RECORDING_S3_UPLOAD_ACCESS_KEY_ID: "egress-key", RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY: "egress-secret" };
// Production needs its other secrets too; only the recordings' pairs are under test here.
const production = {
  NODE_ENV: "production",
  LIVEKIT_API_KEY: "production-livekit-key",
  LIVEKIT_API_SECRET: "production-livekit-secret-0123456789abcdef",
};
const parse = (env: Record<string, string>) => parseConfig(configSchema, { ...base, ...env });

describe("the recordings' S3 key pairs", () => {
  it("hands the recorder its own upload pair, and keeps the meeting service's pair for reading and deleting", () => {
    const settings = parse({ ...s3, ...upload }).recording.s3!;
    expect(settings).toMatchObject({ accessKeyId: "meeting-key", secretAccessKey: "meeting-secret", uploadsWithReadingPair: false });
    expect(settings.upload).toEqual({ accessKeyId: "egress-key", secretAccessKey: "egress-secret" });
  });

  it("in development without an upload pair, the recorder uploads with the meeting service's pair (start warns)", () => {
    const settings = parse(s3).recording.s3!;
    expect(settings.uploadsWithReadingPair).toBe(true);
    expect(settings.upload).toEqual({ accessKeyId: "meeting-key", secretAccessKey: "meeting-secret" });
  });

  it("refuses to start in production without an upload pair, and refuses half a pair anywhere", () => {
    expect(() => parse({ ...production, ...s3 })).toThrow(/RECORDING_S3_UPLOAD_ACCESS_KEY_ID: is required with RECORDING_STORAGE=s3 when NODE_ENV=production/);
    expect(parse({ ...production, ...s3, ...upload }).recording.s3!.upload.accessKeyId).toBe("egress-key");
    expect(() => parse({ ...s3, RECORDING_S3_UPLOAD_ACCESS_KEY_ID: "egress-key" })).toThrow(/RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY: .*set together/);
  });
});
