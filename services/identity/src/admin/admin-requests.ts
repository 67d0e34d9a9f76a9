import { RequestCheck as PlatformRequestCheck } from "@svc/platform";
import { emailAddressMaxLength, identityLimits, LINE_BREAKING_OR_CONTROL, SIGN_IN_EMAIL } from "@svc/platform/contract";

// Ids are UUIDs; anything else is refused before it reaches a query.
/** Lengths as people (and JSON Schema) count them: code points, not UTF-16 units. */
const lengthOf = (value: string) => [...value].length;

/** The platform's RequestCheck with identity's rules: names, e-mail addresses, passwords. */
export class RequestCheck extends PlatformRequestCheck {
  id(field: string, value: string): string {
    return this.uuid(field, value);
  }

  name(field: string, value: string, maxLength: number, fallback?: string): string {
    const name = value.trim() || fallback || "";
    if (!name) this.add(`${field} is required`);
    // Counted as sent, so the limit does not depend on how trimming is defined.
    else if (lengthOf(value) > maxLength) this.add(`${field} must be at most ${maxLength} characters`);
    else if (LINE_BREAKING_OR_CONTROL.test(name)) this.add(`${field} must not contain control characters`);
    return name;
  }

  email(field: string, value: string): string {
    const email = value.trim();
    if (value.length > emailAddressMaxLength || !SIGN_IN_EMAIL.test(email)) this.add(`${field} must be an e-mail address`);
    return email;
  }

  password(field: string, value: string): string {
    const { passwordMinLength, passwordMaxLength } = identityLimits;
    if (lengthOf(value) < passwordMinLength) this.add(`${field} must be at least ${passwordMinLength} characters`);
    if (lengthOf(value) > passwordMaxLength) this.add(`${field} must be at most ${passwordMaxLength} characters`);
    return value;
  }
}
