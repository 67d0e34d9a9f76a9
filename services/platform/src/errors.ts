import { Code, ConnectError } from "@connectrpc/connect";
import { errorMetadata } from "./contract/error-metadata.ts";
import type { Scope } from "./contract/scopes.ts";

/** One INVALID_ARGUMENT naming every problem, so a caller can fix a request in one round. */
export function invalidArgument(problems: string[]): ConnectError {
  return new ConnectError(problems.join("; "), Code.InvalidArgument);
}

export function notFound(what: string): ConnectError {
  return new ConnectError(`${what} not found`, Code.NotFound);
}

export function unauthenticated(message = "Missing or invalid authentication token"): ConnectError {
  return new ConnectError(message, Code.Unauthenticated);
}

/** The message form is fixed by the specification: "Insufficient scope: <scope>". */
export function insufficientScope(scope: Scope): ConnectError {
  return new ConnectError(`Insufficient scope: ${scope}`, Code.PermissionDenied, { [errorMetadata.requiredScope]: scope });
}

/** An operation only an organization's admins may perform, asked by a member. */
export function adminRoleRequired(): ConnectError {
  return new ConnectError("Only an admin of the organization can do this", Code.PermissionDenied);
}
