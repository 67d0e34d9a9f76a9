import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { AwsClient } from "aws4fetch";
import { freePorts } from "./infra.ts";
import { waitFor } from "./wait.ts";

const root = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

export interface RunningS3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** The folder behind the bucket: an object `key` is the file `<dir>/<bucket>/<key>`. */
  dir: string;
  /** The environment that points the meeting service's recordings at this bucket. */
  env: Record<string, string>;
  /** Signed requests, as any S3 client makes them. */
  client: AwsClient;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server (versitygw on a temporary folder, scripts/s3-server, built once from
 * the Go module proxy) with one bucket, on a free loopback port.
 */
export async function startS3Server(): Promise<RunningS3Server> {
  const { stdout } = await run(path.join(root, "scripts/s3-server"), ["path"], { maxBuffer: 16 * 1024 * 1024, timeout: 1_200_000 });
  const binary = stdout.trim();
  const dir = await mkdtemp(path.join(os.tmpdir(), "svc-s3-"));
  const [port] = await freePorts(1);
  const accessKeyId = `test${randomBytes(6).toString("hex")}`;
  const secretAccessKey = randomBytes(24).toString("base64url");
  const region = "us-east-1";
  const bucket = "svc-recordings";
  const endpoint = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child: ChildProcess = spawn(
    binary,
    ["--access", accessKeyId, "--secret", secretAccessKey, "--region", region, "--port", `127.0.0.1:${port}`, "posix", dir],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const client = new AwsClient({ accessKeyId, secretAccessKey, region, service: "s3" });
  const stop = async () => {
    if (child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`versitygw exited with ${child.exitCode}: ${output.join("")}`);
        return fetch(`${endpoint}/`).then(
          () => true,
          () => false,
        );
      },
      30_000,
      "versitygw listens",
    );
    const created = await client.fetch(`${endpoint}/${bucket}`, { method: "PUT" });
    if (!created.ok) throw new Error(`could not create the bucket: ${created.status} ${await created.text()}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    region,
    dir,
    client,
    env: {
      RECORDING_STORAGE: "s3",
      RECORDING_S3_ENDPOINT: endpoint,
      RECORDING_S3_BUCKET: bucket,
      RECORDING_S3_REGION: region,
      RECORDING_S3_ACCESS_KEY_ID: accessKeyId,
      RECORDING_S3_SECRET_ACCESS_KEY: secretAccessKey,
      RECORDING_S3_FORCE_PATH_STYLE: "true",
    },
    stop,
  };
}
