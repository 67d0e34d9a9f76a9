import { z } from "zod";
import { baseEnvSchema, defaultAddresses, port } from "@svc/platform";

export const configSchema = baseEnvSchema.extend({
  GRPC_PORT: port(defaultAddresses.webhook),
});

export type Config = z.output<typeof configSchema>;
