import { z } from "zod";
import { defaultAddresses, serviceUrl } from "@svc/platform";
import { DEVELOPMENT_ADMIN_TOKEN } from "../admin/admin-token.ts";

/** The admin CLI's environment (`npm run cli`); it reads nothing else. */
export const cliConfigSchema = z.object({
  /** Where the CLI finds identity's admin port (ADMIN_PORT), which serves IdentityAdminService alone. */
  SVC_IDENTITY_ADMIN_URL: serviceUrl(defaultAddresses.identityAdmin),
  /**
   * The administrator token, identity's ADMIN_TOKEN. Unset: the development token, which identity
   * accepts only while it runs without ADMIN_TOKEN.
   */
  SVC_ADMIN_TOKEN: z.string().min(1).default(DEVELOPMENT_ADMIN_TOKEN),
  /** No longer read: the admin API left the gRPC port. Set, the CLI stops and names SVC_IDENTITY_ADMIN_URL. */
  SVC_IDENTITY_URL: z.string().optional(),
});
