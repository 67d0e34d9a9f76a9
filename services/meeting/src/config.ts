import { z } from "zod";
import { baseEnvSchema, defaultAddresses, port, serviceUrl } from "@svc/platform";

export const configSchema = baseEnvSchema.extend({
  GRPC_PORT: port(defaultAddresses.meeting),
  IDENTITY_URL: serviceUrl(defaultAddresses.identity),
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
});

export type Config = z.output<typeof configSchema>;
