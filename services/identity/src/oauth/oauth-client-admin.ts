import { randomUUID } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, type Logger } from "@svc/platform";
import { identityLimits, LINE_BREAKING_OR_CONTROL, uriSyntaxProblem } from "@svc/platform/contract";
import type { IdentityAdminService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import type { OAuthClientQueries, OAuthClientRecord } from "../db/oauth-clients.ts";
import { generateClientSecret, hashClientSecret } from "./client-secret.ts";
import { ALL_SCOPES, isKnownScope } from "./scopes.ts";

export type OAuthClientAdminImpl = Pick<ServiceImpl<typeof IdentityAdminService>, "createOAuthClient" | "listOAuthClients" | "deleteOAuthClient">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_REDIRECT_URIS = identityLimits.redirectUrisMax;
const MAX_URI_LENGTH = identityLimits.redirectUriMaxLength;

/**
 * The OAuth-client RPCs of IdentityAdminService. The secret is generated here, returned once
 * and stored only as its SHA-256. Deleting a client ends every grant and token issued to it.
 */
export function oauthClientAdmin(deps: {
  clients: OAuthClientQueries;
  credentials: CredentialVerification;
  redirectUriPolicy: RedirectUriPolicy;
  logger: Logger;
}): OAuthClientAdminImpl {
  const { clients, credentials, logger } = deps;
  return {
    async createOAuthClient(request) {
      const problems: string[] = [];
      if (!UUID.test(request.orgId)) problems.push("orgId must be a UUID");
      const { name, redirectUris, scopes } = checkClientFields(request, problems, deps.redirectUriPolicy);
      if (problems.length > 0) throw invalidArgument(problems);

      const clientSecret = generateClientSecret();
      const created = await clients.create({
        clientId: randomUUID(),
        orgId: request.orgId.toLowerCase(),
        name,
        redirectUris,
        scopes,
        secretHash: hashClientSecret(clientSecret),
      });
      if (!created) throw notFound("Organization");
      logger.info({ clientId: created.clientId, orgId: created.orgId }, "OAuth client created");
      return { client: toOAuthClientMessage(created), clientSecret };
    },

    async listOAuthClients(request) {
      if (!UUID.test(request.orgId)) throw invalidArgument(["orgId must be a UUID"]);
      const orgId = request.orgId.toLowerCase();
      if (!(await clients.organizationExists(orgId))) throw notFound("Organization");
      return { clients: (await clients.listByOrg(orgId)).map(toOAuthClientMessage) };
    },

    async deleteOAuthClient(request) {
      if (!UUID.test(request.clientId)) throw invalidArgument(["clientId must be a UUID"]);
      const clientId = request.clientId.toLowerCase();
      const revokedAccessTokens = await clients.delete(clientId);
      if (!revokedAccessTokens) throw notFound("OAuth client");
      try {
        await Promise.all(revokedAccessTokens.map((tokenHash) => credentials.revoke(tokenHash)));
      } catch (error) {
        // The tokens are gone from the database; a cached answer may accept one for up to a minute.
        logger.error({ err: error, clientId }, "OAuth client deleted but the verification cache could not be invalidated");
        throw new ConnectError("The client is deleted, but the verification cache could not be invalidated (it expires within 60 s)", Code.Unavailable);
      }
      logger.info({ clientId, revokedAccessTokens: revokedAccessTokens.length }, "OAuth client deleted");
      return { clientId };
    },
  };
}

/**
 * The rules of a client's name, redirect URIs and scopes (CLI and dashboard alike): appends each
 * broken rule to `problems` and returns the normalised fields.
 */
export function checkClientFields(request: { name: string; redirectUris: string[]; scopes: string[] }, problems: string[], policy: RedirectUriPolicy) {
  const name = request.name.trim();
  if (!name) problems.push("name is required");
  else if ([...request.name].length > identityLimits.nameMaxLength || LINE_BREAKING_OR_CONTROL.test(name)) {
    problems.push(`name must be at most ${identityLimits.nameMaxLength} characters, without control characters`);
  }
  const redirectUris = [...new Set(request.redirectUris)];
  // Counted as sent: a list over the limit is refused even when duplicates would shrink it.
  if (redirectUris.length === 0 || request.redirectUris.length > MAX_REDIRECT_URIS) problems.push(`redirectUris must hold 1 to ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri, policy);
    if (problem) problems.push(`redirectUris: ${JSON.stringify(uri.slice(0, 100))} ${problem}`);
  }
  const scopes = [...new Set(request.scopes)];
  if (scopes.length === 0) problems.push(`scopes must name at least one of: ${ALL_SCOPES.join(", ")}`);
  const unknown = scopes.filter((scope) => !isKnownScope(scope));
  if (unknown.length > 0) problems.push(`scopes: unknown ${unknown.join(", ")} (known: ${ALL_SCOPES.join(", ")})`);
  return { name, redirectUris, scopes };
}

export interface RedirectUriPolicy {
  /** Production (NODE_ENV=production): plain http only for loopback redirect URIs. */
  requireHttps: boolean;
}

/** Hosts of loopback redirect URIs (RFC 8252 §7.3: native apps listen on the device itself). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Redirect URIs are compared exactly, so they must be complete: absolute http(s) URLs without
 * a fragment (RFC 6749 §3.1.2) or credentials. In production they must be https (a code sent
 * over plain http can be read on the way), except loopback URIs, which never leave the device.
 */
export function redirectUriProblem(uri: string, policy: RedirectUriPolicy): string | undefined {
  if (uri.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  const url = URL.parse(uri);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return "must be an absolute http(s) URL";
  if (policy.requireHttps && url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    return "must be https (plain http only for loopback: 127.0.0.1, [::1] or localhost)";
  }
  if (uri.includes("#")) return "must not contain a fragment";
  if (url.username || url.password) return "must not contain credentials";
  if (/\s/.test(uri)) return "must not contain spaces";
  // Compared exactly with what the browser sends: ASCII as RFC 3986 spells it, nothing the URL
  // parser would rewrite.
  return uriSyntaxProblem(uri);
}

export function toOAuthClientMessage(client: OAuthClientRecord) {
  return {
    clientId: client.clientId,
    orgId: client.orgId,
    name: client.name,
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    createdAt: timestampFromDate(client.createdAt),
  };
}
