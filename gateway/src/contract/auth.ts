import { z } from "zod";
import { uuid } from "./common.ts";

/** POST /auth's answer (spec 4.1). */
export const CredentialVerification = z
  .object({
    valid: z.literal(true),
    userId: uuid(),
    orgId: uuid(),
    kind: z
      .enum(["api_key", "oauth", "session"])
      .meta({ description: "What kind of credential it is: an API key, an OAuth access token, or a dashboard session (cookie)." }),
    scopes: z.array(z.string()).meta({ description: "Scopes granted to an OAuth access token; empty for API keys, which have full access." }),
    clientId: z.string().nullable().meta({ description: "The OAuth client the token was issued to; null for API keys." }),
  })
  .meta({ id: "CredentialVerification" });
