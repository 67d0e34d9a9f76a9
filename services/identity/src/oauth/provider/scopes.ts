// The catalog is part of the public contract (shared with the gateway's OpenAPI document).
import { ALL_SCOPES, SCOPE_DESCRIPTIONS, type Scope } from "@svc/platform/contract";

export { ALL_SCOPES, SCOPE_DESCRIPTIONS, type Scope };

export const isKnownScope = (value: string): value is Scope => Object.hasOwn(SCOPE_DESCRIPTIONS, value);

/** Splits an OAuth `scope` parameter (space-separated, RFC 6749 §3.3) into distinct scopes. */
export const parseScopeParameter = (value: string | undefined): string[] => [...new Set((value ?? "").split(" ").filter(Boolean))];
