import { invalidArgument } from "@svc/platform";
import { emailAddressMaxLength, identityLimits, LINE_BREAKING_OR_CONTROL, SIGN_IN_EMAIL, UUID } from "@svc/platform/contract";

// Ids are UUIDs; anything else is refused before it reaches a query.
/** Lengths as people (and JSON Schema) count them: code points, not UTF-16 units. */
const lengthOf = (value: string) => [...value].length;

/** Collects every problem of a request, so INVALID_ARGUMENT names them all at once. */
export class RequestCheck {
  private readonly problems: string[] = [];

  id(field: string, value: string): string {
    if (!UUID.test(value)) this.problems.push(`${field} must be a UUID`);
    return value.toLowerCase();
  }

  name(field: string, value: string, maxLength: number, fallback?: string): string {
    const name = value.trim() || fallback || "";
    if (!name) this.problems.push(`${field} is required`);
    // Counted as sent, so the limit does not depend on how trimming is defined.
    else if (lengthOf(value) > maxLength) this.problems.push(`${field} must be at most ${maxLength} characters`);
    else if (LINE_BREAKING_OR_CONTROL.test(name)) this.problems.push(`${field} must not contain control characters`);
    return name;
  }

  email(field: string, value: string): string {
    const email = value.trim();
    if (value.length > emailAddressMaxLength || !SIGN_IN_EMAIL.test(email)) this.problems.push(`${field} must be an e-mail address`);
    return email;
  }

  password(field: string, value: string): string {
    const { passwordMinLength, passwordMaxLength } = identityLimits;
    if (lengthOf(value) < passwordMinLength) this.problems.push(`${field} must be at least ${passwordMinLength} characters`);
    if (lengthOf(value) > passwordMaxLength) this.problems.push(`${field} must be at most ${passwordMaxLength} characters`);
    return value;
  }

  /** Throws INVALID_ARGUMENT naming every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw invalidArgument(this.problems);
  }
}
