import os from "node:os";
import path from "node:path";
import { z } from "zod";
import {
  baseEnvSchema,
  booleanVariable,
  credentialCacheKeyDefaults,
  defaultAddresses,
  developmentDefaultsRefusal,
  port,
  refuseDevelopmentDefaults,
  serviceUrl,
  type DevelopmentDefault,
} from "@svc/platform";
import { checkKafkaSecurity, kafkaSecurityEnv } from "@svc/platform/events";

/**
 * Well-known LiveKit credentials so `npm start` works with nothing configured: the embedded media
 * server is started with the same pair. They are public (they are in this file), so anyone could
 * mint room tokens with them: main.ts warns loudly when they are used, and the configuration
 * refuses them in production and on a non-loopback HOST (refuseDevelopmentDefaults).
 */
export const DEVELOPMENT_LIVEKIT_API_KEY = "svc-development-key";
export const DEVELOPMENT_LIVEKIT_API_SECRET = "svc-development-only-livekit-secret-not-for-production";
export const DEFAULT_LIVEKIT_PORT = 7880;
/** Signs recording access links when RECORDING_LINK_SECRET is unset: public, so development only (warned, refused in production). */
export const DEVELOPMENT_RECORDING_LINK_SECRET = "svc-development-only-recording-link-secret-not-for-production";
/** Where recordings are kept by default: the development data folder (the chart sets a volume). */
export const DEFAULT_RECORDING_DIR = path.join(os.homedir(), ".cache", "svc", "recordings");

const mediaUrl = (schemes: RegExp, hint: string) =>
  z.string().refine((value) => URL.canParse(value) && schemes.test(new URL(value).protocol), { message: hint });

/**
 * The recorder's own S3 key pair (it uploads, and should be able to do nothing else): set as a
 * pair, and required where development defaults are refused, since without it the recorder is
 * handed the pair that reads and deletes every recording.
 */
function checkUploadCredentials(
  env: {
    NODE_ENV?: string | undefined;
    HOST: string;
    RECORDING_S3_UPLOAD_ACCESS_KEY_ID?: string | undefined;
    RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY?: string | undefined;
  },
  context: z.RefinementCtx,
): void {
  const id = env.RECORDING_S3_UPLOAD_ACCESS_KEY_ID === undefined;
  const secret = env.RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY === undefined;
  if (id !== secret) {
    const missing = id ? "RECORDING_S3_UPLOAD_ACCESS_KEY_ID" : "RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY";
    context.addIssue({
      code: "custom",
      path: [missing],
      message: "RECORDING_S3_UPLOAD_ACCESS_KEY_ID and RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY are set together",
    });
    return;
  }
  const refusal = developmentDefaultsRefusal(env);
  if (id && refusal !== undefined)
    context.addIssue({
      code: "custom",
      path: ["RECORDING_S3_UPLOAD_ACCESS_KEY_ID"],
      message: `is required with RECORDING_STORAGE=s3 when ${refusal}: the recorder's own key pair, allowed to upload only (s3:PutObject), not the pair that reads and deletes recordings`,
    });
}

/**
 * Where recordings (and speakers' audio tracks) are stored, and the pair that reads them: the
 * meeting service's configuration and the transcription worker's (worker-config.ts), which reads
 * the same storage.
 */
export const recordingStorageEnv = z.object({
  /** Where recordings are stored: `filesystem` (RECORDING_DIR) or `s3` (an S3-compatible bucket, RECORDING_S3_*). */
  RECORDING_STORAGE: z.enum(["filesystem", "s3"]).default("filesystem"),
  /** The folder the recorder (LiveKit Egress) writes files to and the meeting service and transcription worker read them from (filesystem storage); unset: `~/.cache/svc/recordings`. */
  RECORDING_DIR: z.string().min(1).optional(),
  /** S3 storage: the endpoint URL (`https://s3.example.com`; any S3-compatible server). */
  RECORDING_S3_ENDPOINT: z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), { message: "must be an http(s):// URL" })
    .optional(),
  /** S3 storage: the bucket (it must exist). */
  RECORDING_S3_BUCKET: z.string().min(3).max(63).optional(),
  /** S3 storage: the region the signatures name. */
  RECORDING_S3_REGION: z.string().min(1).default("us-east-1"),
  /** S3 storage: the access key id (with RECORDING_S3_SECRET_ACCESS_KEY) the meeting service reads, measures and deletes recordings with (s3:GetObject and s3:DeleteObject on the bucket's objects); the transcription worker reads audio tracks with it (s3:GetObject is all it uses). */
  RECORDING_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** S3 storage: the secret access key. */
  RECORDING_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** S3 storage: path-style URLs (`endpoint/bucket/key`), as most self-hosted servers need. */
  RECORDING_S3_FORCE_PATH_STYLE: booleanVariable(true),
});

/** The variables RECORDING_STORAGE=s3 requires. */
export const REQUIRED_S3_VARIABLES = ["RECORDING_S3_ENDPOINT", "RECORDING_S3_BUCKET", "RECORDING_S3_ACCESS_KEY_ID", "RECORDING_S3_SECRET_ACCESS_KEY"] as const;

export const configSchema = baseEnvSchema
  .extend({
    /** TLS and SASL towards the brokers (KAFKA_TLS, KAFKA_SASL_*: platform events/kafka-security.ts). */
    ...kafkaSecurityEnv,
    /** Port of the service's gRPC, gRPC-Web and Connect server (h2c), with health and reflection. */
    GRPC_PORT: port(defaultAddresses.meeting),
    /** Port of the same services over gRPC only, served by grpc-js, with health: the one the gateway calls, cheaper per call than GRPC_PORT (docs/decisions/0018). */
    INTERNAL_GRPC_PORT: port(defaultAddresses.meetingInternal),
    /** Where the identity service is (credential verification). */
    IDENTITY_URL: serviceUrl(defaultAddresses.identity),
    /** `production` refuses the development defaults (the image sets it), as a non-loopback HOST does. */
    NODE_ENV: z.string().default("development"),
    /** The externally visible origin of the gateway: join URLs are `${PUBLIC_URL}/meeting/<id>`. */
    PUBLIC_URL: z
      .string()
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), { message: "must be an http(s):// origin" })
      .default(`http://localhost:${defaultAddresses.gateway}`)
      .transform((value) => value.replace(/\/+$/, "")),
    /** How often the outbox relay looks for rows other replicas wrote (its own writes wake it at once). */
    OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    /** Longest pause between publish attempts while the event transport keeps failing. */
    OUTBOX_MAX_BACKOFF_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),

    /** The media server's API, as this service reaches it (room service calls). */
    LIVEKIT_URL: mediaUrl(/^(https?|wss?):$/, "must be an http(s):// or ws(s):// URL").default(`http://127.0.0.1:${DEFAULT_LIVEKIT_PORT}`),
    /** The media server's WebSocket URL as browsers reach it (`wss://` in production); defaults to LIVEKIT_URL as `ws://`. */
    LIVEKIT_PUBLIC_URL: mediaUrl(/^wss?:$/, "must be a ws:// or wss:// URL").optional(),
    /**
     * The key pair shared with LiveKit: signs join tokens, verifies its webhooks, calls its room
     * service. Set with LIVEKIT_API_SECRET. Unset: a public development pair, with a warning;
     * refused with NODE_ENV=production or a non-loopback HOST.
     */
    LIVEKIT_API_KEY: z.string().min(1).optional(),
    /** The secret of the LiveKit key pair (at least 32 characters), set with LIVEKIT_API_KEY. */
    LIVEKIT_API_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Port of the HTTP listener that receives LiveKit's signed webhooks (POST /livekit/webhook). */
    LIVEKIT_WEBHOOK_PORT: port(defaultAddresses.meetingMediaWebhooks),
    /** How long an emptied meeting waits for someone to come back before it ends. */
    MEETING_EMPTY_GRACE_SECONDS: z.coerce.number().min(0).max(86_400).default(60),
    /** Most people in one meeting room at once. */
    MEETING_MAX_PARTICIPANTS: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Join grants one client address (an IPv6 /64 counts as one) may get per minute (shared through Redis when configured). */
    JOIN_GRANTS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(30),
    /** Join grants one meeting may hand out per minute to people without a personal link (strangers share it; invited people have their own). */
    JOIN_GRANTS_PER_MEETING_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
    /** Join grants one personal link (or one lobby admission) may get per minute: its holder's own budget, which no stranger can spend. */
    JOIN_GRANTS_PER_LINK_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(30),
    /** How many people may wait in one meeting's lobby from one client address (an IPv6 /64 counts as one) at once. */
    LOBBY_WAITING_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(5),
    /** Chat messages one participant may send per minute. */
    CHAT_MESSAGES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
    /** Chat messages stored per meeting at most (further messages are refused until the meeting ends). */
    CHAT_MESSAGES_PER_MEETING: z.coerce.number().int().min(1).max(1_000_000).default(5_000),
    /** Lifetime of a join grant's token: the browser must connect within it. */
    JOIN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
    /** How often meetings whose no-show time has come are looked for (meeting.no_show). */
    NO_SHOW_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
    /** How often presence is compared with the media server's rooms (lost webhooks); also done at start. */
    ROOM_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),

    ...recordingStorageEnv.shape,
    /** The same folder as the recorder sees it, when it is mounted elsewhere there; default RECORDING_DIR. */
    RECORDING_EGRESS_DIR: z.string().min(1).optional(),
    /**
     * S3 storage: the access key id (with RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY) handed to the
     * recorder with each recording, to upload the file: give it s3:PutObject and
     * s3:AbortMultipartUpload on the bucket's objects and nothing else, so a recorder (a browser on tenants' pages) can never read or delete a
     * recording. Required with NODE_ENV=production or a non-loopback HOST; unset elsewhere: the
     * recorder uploads with RECORDING_S3_ACCESS_KEY_ID's pair, with a warning.
     */
    RECORDING_S3_UPLOAD_ACCESS_KEY_ID: z.string().min(1).optional(),
    /** S3 storage: the recorder's secret access key. */
    RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /**
     * Signs the access links of recordings (HMAC-SHA256), at least 32 characters. Unset: a public
     * development value, with a warning; with NODE_ENV=production or a non-loopback HOST, no
     * access links at all (the service starts, and asking for a link answers that it is not set).
     */
    RECORDING_LINK_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Default lifetime of an access link (a request may ask for 1 s to 7 days). */
    RECORDING_LINK_TTL_SECONDS: z.coerce.number().int().min(1).max(604_800).default(3_600),
    /** Recordings (and their files) are deleted this many days after they ended; 0 keeps them. */
    RECORDING_RETENTION_DAYS: z.coerce.number().min(0).max(36_500).default(30),
    /** How often recordings past their retention are looked for. */
    RECORDING_RETENTION_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
    /** How long a start waits for the recorder to accept; then 503 with Retry-After (never a hang). */
    RECORDING_START_TIMEOUT_SECONDS: z.coerce.number().min(1).max(60).default(8),
    /** The Retry-After of a start refused for want of recording capacity. */
    RECORDING_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
    /** How often recordings in progress are compared with the recorder (a lost recorder fails its recording). */
    RECORDING_WATCH_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    /** A recording whose recorder has been out of the room (or unknown to LiveKit) this long has failed. */
    RECORDING_LOST_AFTER_SECONDS: z.coerce.number().min(1).max(3_600).default(20),
    /** A stopped recording whose file is not finished after this long has failed. */
    RECORDING_FINISH_TIMEOUT_SECONDS: z.coerce.number().min(5).max(86_400).default(300),
  })
  .superRefine((env, context) => {
    checkKafkaSecurity(env, context);
    if ((env.LIVEKIT_API_KEY === undefined) !== (env.LIVEKIT_API_SECRET === undefined)) {
      const missing = env.LIVEKIT_API_KEY === undefined ? "LIVEKIT_API_KEY" : "LIVEKIT_API_SECRET";
      context.addIssue({ code: "custom", path: [missing], message: "LIVEKIT_API_KEY and LIVEKIT_API_SECRET are set together" });
    }
    const defaults: DevelopmentDefault[] = [];
    if (env.LIVEKIT_API_KEY === undefined)
      defaults.push({ variable: "LIVEKIT_API_KEY", howToSet: "with LIVEKIT_API_SECRET, the pair your LiveKit server has" });
    if (env.RECORDING_STORAGE === "s3") {
      for (const variable of REQUIRED_S3_VARIABLES) {
        if (env[variable] === undefined) context.addIssue({ code: "custom", path: [variable], message: "is required with RECORDING_STORAGE=s3" });
      }
      checkUploadCredentials(env, context);
    }
    refuseDevelopmentDefaults(env, [...defaults, ...credentialCacheKeyDefaults(env)], context);
  })
  .transform((env) => {
    const isDevelopmentDefault = env.LIVEKIT_API_KEY === undefined;
    const apiUrl = new URL(env.LIVEKIT_URL);
    // The room service speaks HTTP (Twirp) on the same port as the WebSocket signalling.
    apiUrl.protocol = apiUrl.protocol === "wss:" ? "https:" : apiUrl.protocol === "ws:" ? "http:" : apiUrl.protocol;
    const publicUrl = new URL(env.LIVEKIT_PUBLIC_URL ?? env.LIVEKIT_URL);
    publicUrl.protocol = publicUrl.protocol === "https:" ? "wss:" : publicUrl.protocol === "http:" ? "ws:" : publicUrl.protocol;
    return {
      ...env,
      livekit: {
        apiUrl: apiUrl.toString().replace(/\/+$/, ""),
        publicUrl: publicUrl.toString().replace(/\/+$/, ""),
        apiKey: env.LIVEKIT_API_KEY ?? DEVELOPMENT_LIVEKIT_API_KEY,
        apiSecret: env.LIVEKIT_API_SECRET ?? DEVELOPMENT_LIVEKIT_API_SECRET,
        isDevelopmentDefault,
      },
      recording: {
        storage: env.RECORDING_STORAGE,
        dir: env.RECORDING_DIR ?? DEFAULT_RECORDING_DIR,
        egressDir: env.RECORDING_EGRESS_DIR ?? env.RECORDING_DIR ?? DEFAULT_RECORDING_DIR,
        s3:
          env.RECORDING_STORAGE === "s3"
            ? {
                endpoint: env.RECORDING_S3_ENDPOINT!.replace(/\/+$/, ""),
                bucket: env.RECORDING_S3_BUCKET!,
                region: env.RECORDING_S3_REGION,
                accessKeyId: env.RECORDING_S3_ACCESS_KEY_ID!,
                secretAccessKey: env.RECORDING_S3_SECRET_ACCESS_KEY!,
                upload: {
                  accessKeyId: env.RECORDING_S3_UPLOAD_ACCESS_KEY_ID ?? env.RECORDING_S3_ACCESS_KEY_ID!,
                  secretAccessKey: env.RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY ?? env.RECORDING_S3_SECRET_ACCESS_KEY!,
                },
                uploadsWithReadingPair: env.RECORDING_S3_UPLOAD_ACCESS_KEY_ID === undefined,
                forcePathStyle: env.RECORDING_S3_FORCE_PATH_STYLE,
              }
            : undefined,
        // The public development value is never used where development defaults are refused.
        linkSecret: env.RECORDING_LINK_SECRET ?? (developmentDefaultsRefusal(env) === undefined ? DEVELOPMENT_RECORDING_LINK_SECRET : undefined),
        linkSecretIsDevelopmentDefault: env.RECORDING_LINK_SECRET === undefined && developmentDefaultsRefusal(env) === undefined,
      },
    };
  });

export type Config = z.output<typeof configSchema>;
