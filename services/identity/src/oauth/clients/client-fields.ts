import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { identityLimits, LINE_BREAKING_OR_CONTROL } from "@svc/platform/contract";
import type { OAuthClientRecord } from "../../oauth-stores.ts";
import { ALL_SCOPES, isKnownScope } from "../provider/scopes.ts";
import { redirectUriProblem, type RedirectUriPolicy } from "./redirect-uri.ts";

const MAX_REDIRECT_URIS = identityLimits.redirectUrisMax;

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

export function toOAuthClientMessage(client: OAuthClientRecord) {
  return {
    clientId: client.clientId,
    orgId: client.orgId,
    name: client.name,
    redirectUris: client.redirectUris,
    scopes: client.scopes,
    createdAt: timestampFromDate(client.createdAt),
    requirePkce: client.requirePkce,
  };
}
