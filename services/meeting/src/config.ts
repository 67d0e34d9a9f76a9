import { z } from "zod";
import { baseEnvSchema, defaultAddresses, port, serviceUrl } from "@svc/platform";

export const configSchema = baseEnvSchema.extend({
  GRPC_PORT: port(defaultAddresses.meeting),
  IDENTITY_URL: serviceUrl(defaultAddresses.identity),
});

export type Config = z.output<typeof configSchema>;
