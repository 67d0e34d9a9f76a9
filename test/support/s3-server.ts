import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { AwsClient } from "aws4fetch";
import { freePorts } from "./infra.ts";
import { waitFor } from "./wait.ts";

const root = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** A key pair of the server and an S3 client that signs with it. */
export interface S3Account {
  accessKeyId: string;
  secretAccessKey: string;
  client: AwsClient;
}

/** What each of the two service accounts may do on the bucket's objects (its bucket policy). */
export interface S3Grants {
  /** The meeting service's pair (RECORDING_S3_ACCESS_KEY_ID). */
  reader: string[];
  /** The recorder's pair (RECORDING_S3_UPLOAD_ACCESS_KEY_ID). */
  uploader: string[];
}

/** As docs/deploying.md tells an operator to grant: the meeting service reads and deletes, the recorder only uploads. */
export const RECOMMENDED_GRANTS: S3Grants = { reader: ["s3:GetObject", "s3:DeleteObject"], uploader: ["s3:PutObject", "s3:AbortMultipartUpload"] };

export interface RunningS3Server extends S3Account {
  endpoint: string;
  bucket: string;
  region: string;
  /** The meeting service's account: reads, measures and deletes recordings (RECORDING_S3_ACCESS_KEY_ID). */
  reader: S3Account;
  /** The recorder's account: uploads recordings (RECORDING_S3_UPLOAD_ACCESS_KEY_ID). */
  uploader: S3Account;
  /** The folder behind the bucket: an object `key` is the file `<dir>/<bucket>/<key>`. */
  dir: string;
  /** The environment that points the meeting service's recordings at this bucket. */
  env: Record<string, string>;
  /** Replaces the bucket's policy (the server's root account owns the bucket and may do anything). */
  grant(grants: S3Grants): Promise<void>;
  stop(): Promise<void>;
}

const account = (accessKeyId: string, secretAccessKey: string, region: string): S3Account => ({
  accessKeyId,
  secretAccessKey,
  client: new AwsClient({ accessKeyId, secretAccessKey, region, service: "s3" }),
});

const newAccount = (name: string, region: string) => account(`${name}${randomBytes(6).toString("hex")}`, randomBytes(24).toString("base64url"), region);

/**
 * A real S3-compatible server (versitygw on a temporary folder, scripts/s3-server, built once from
 * the Go module proxy) with one bucket, on a free loopback port. Besides its root account (the
 * bucket's owner: `accessKeyId`, `client`) it has two plain accounts (versitygw's internal IAM,
 * `--iam-dir`) that may do on the bucket only what its bucket policy grants them
 * (RECOMMENDED_GRANTS unless `grant` changes it).
 */
export async function startS3Server(): Promise<RunningS3Server> {
  const { stdout } = await run(path.join(root, "scripts/s3-server"), ["path"], { maxBuffer: 16 * 1024 * 1024, timeout: 1_200_000 });
  const binary = stdout.trim();
  const dir = await mkdtemp(path.join(os.tmpdir(), "svc-s3-"));
  const [port] = await freePorts(1);
  const region = "us-east-1";
  const owner = newAccount("test", region);
  const { accessKeyId, secretAccessKey, client } = owner;
  const reader = newAccount("reader", region);
  const uploader = newAccount("uploader", region);
  // The accounts live beside the bucket's folder, not in it (versitygw would list them as a bucket).
  const iamDir = `${dir}-iam`;
  await mkdir(iamDir);
  const accessAccounts = Object.fromEntries(
    [reader, uploader].map(({ accessKeyId: access, secretAccessKey: secret }) => [access, { access, secret, role: "user", userID: 0, groupID: 0 }]),
  );
  await writeFile(path.join(iamDir, "users.json"), JSON.stringify({ accessAccounts }));
  const bucket = "svc-recordings";
  const endpoint = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child: ChildProcess = spawn(
    binary,
    ["--access", accessKeyId, "--secret", secretAccessKey, "--region", region, "--port", `127.0.0.1:${port}`, "--iam-dir", iamDir, "posix", dir],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    }
    await rm(dir, { recursive: true, force: true });
    await rm(iamDir, { recursive: true, force: true });
  };
  const grant = async (grants: S3Grants) => {
    const objects = `arn:aws:s3:::${bucket}/*`;
    const statements = (
      [
        [reader, grants.reader],
        [uploader, grants.uploader],
      ] as const
    )
      .filter(([, actions]) => actions.length > 0)
      .map(([who, actions]) => ({ Effect: "Allow", Principal: { AWS: [who.accessKeyId] }, Action: actions, Resource: [objects] }));
    const response =
      statements.length === 0
        ? await client.fetch(`${endpoint}/${bucket}?policy`, { method: "DELETE" })
        : await client.fetch(`${endpoint}/${bucket}?policy`, { method: "PUT", body: JSON.stringify({ Version: "2012-10-17", Statement: statements }) });
    if (!response.ok) throw new Error(`could not set the bucket policy: ${response.status} ${await response.text()}`);
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
    await grant(RECOMMENDED_GRANTS);
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
    reader,
    uploader,
    grant,
    env: {
      RECORDING_STORAGE: "s3",
      RECORDING_S3_ENDPOINT: endpoint,
      RECORDING_S3_BUCKET: bucket,
      RECORDING_S3_REGION: region,
      RECORDING_S3_ACCESS_KEY_ID: reader.accessKeyId,
      RECORDING_S3_SECRET_ACCESS_KEY: reader.secretAccessKey,
      RECORDING_S3_UPLOAD_ACCESS_KEY_ID: uploader.accessKeyId,
      RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY: uploader.secretAccessKey,
      RECORDING_S3_FORCE_PATH_STYLE: "true",
    },
    stop,
  };
}
