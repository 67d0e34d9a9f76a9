import { z } from "zod";
import {
  baseEnvSchema,
  checkKafkaSecurity,
  credentialCacheKeyDefaults,
  defaultAddresses,
  kafkaSecurityEnv,
  port,
  refuseDevelopmentDefaults,
  serviceUrl,
  type DevelopmentDefault,
} from "@svc/platform";

/**
 * Well-known LiveKit credentials so `npm start` works with nothing configured: the embedded media
 * server is started with the same pair. They are public (they are in this file), so anyone could
 * mint room tokens with them: main.ts warns loudly when they are used, and the configuration
 * refuses them in production and on a non-loopback HOST (refuseDevelopmentDefaults).
 */
export const DEVELOPMENT_LIVEKIT_API_KEY = "svc-development-key";
export const DEVELOPMENT_LIVEKIT_API_SECRET = "svc-development-only-livekit-secret-not-for-production";
export const DEFAULT_LIVEKIT_PORT = 7880;

const mediaUrl = (schemes: RegExp, hint: string) =>
  z.string().refine((value) => URL.canParse(value) && schemes.test(new URL(value).protocol), { message: hint });

export const configSchema = baseEnvSchema
  .extend({
    /** TLS and SASL towards the brokers (KAFKA_TLS, KAFKA_SASL_*: platform events/kafka-security.ts). */
    ...kafkaSecurityEnv,
    /** Port of the service's gRPC, gRPC-Web and Connect server (h2c), with health and reflection. */
    GRPC_PORT: port(defaultAddresses.meeting),
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
    /** Join grants one meeting may hand out per minute, whoever asks. */
    JOIN_GRANTS_PER_MEETING_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
    /** Lifetime of a join grant's token: the browser must connect within it. */
    JOIN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
    /** How often meetings whose no-show time has come are looked for (meeting.no_show). */
    NO_SHOW_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
    /** How often presence is compared with the media server's rooms (lost webhooks); also done at start. */
    ROOM_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
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
    };
  });

export type Config = z.output<typeof configSchema>;
