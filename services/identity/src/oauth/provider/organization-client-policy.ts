import { errors, type Grant } from "oidc-provider";

/**
 * An organization's rule for which OAuth clients its members may authorize (oauth-stores.ts, OAuthClientPolicyStore):
 * its own clients always; another organization's when its policy is `all` or the client is listed.
 */
export interface OrganizationClientPolicy {
  allows(orgId: string, clientId: string): Promise<boolean>;
}

/** The error_description the application receives with `access_denied` (RFC 6749 §4.1.2.1). */
export const REFUSED_BY_ORGANIZATION = "the user's organization does not allow this application";

/**
 * The grant path's check (oidc-provider's `loadExistingGrant`, which runs before any code is
 * issued): a grant the consent page approved is refused when the user's organization does not
 * allow its client now, for example because an admin changed the list between the page and the
 * approval. The grant is deleted and the authorization ends with `access_denied`, which
 * oidc-provider redirects to the (already validated) redirect URI with `state`.
 */
export async function assertOrganizationAllowsGrant(
  grant: Grant,
  findOrganizationOf: (userId: string) => Promise<string | undefined>,
  policy: OrganizationClientPolicy,
): Promise<void> {
  const orgId = grant.accountId ? await findOrganizationOf(grant.accountId) : undefined;
  // No organization: the account is gone or deactivated, which findAccount refuses on its own.
  if (!orgId || !grant.clientId || (await policy.allows(orgId, grant.clientId))) return;
  await grant.destroy();
  throw new errors.AccessDenied(REFUSED_BY_ORGANIZATION);
}
