import type { ServiceImpl } from "@connectrpc/connect";
import type { ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import { apiKeyHandlers } from "./management/api-key-handlers.ts";
import { authorizedAppHandlers } from "./management/authorized-app-handlers.ts";
import { clientPolicyHandlers } from "./management/client-policy-handlers.ts";
import { managementAccess, type ManagementDependencies } from "./management/management-context.ts";
import { meetingEmbeddingHandlers } from "./management/meeting-embedding-handlers.ts";
import { oauthClientHandlers } from "./management/oauth-client-handlers.ts";
import { userHandlers } from "./management/user-handlers.ts";

/**
 * svc.identity.v1.ManagementService: what a person manages in the dashboard, always with a
 * dashboard session, always inside the session's organization (another organization's id gets
 * the same NOT_FOUND as an unknown one). Every user manages their own API keys and authorized
 * apps; OAuth clients, users, the client policy and the sites that may embed meetings are the
 * admins'. The handlers are in management/, a module for each thing managed.
 */
export function managementService(deps: ManagementDependencies): ServiceImpl<typeof ManagementService> {
  const access = managementAccess(deps);
  return {
    ...apiKeyHandlers(deps, access),
    ...authorizedAppHandlers(deps, access),
    ...oauthClientHandlers(deps, access),
    ...userHandlers(deps, access),
    ...clientPolicyHandlers(deps, access),
    ...meetingEmbeddingHandlers(deps, access),
  };
}
