import { invalidArgument } from "@svc/platform";
import { MAX_PASSWORD_LENGTH } from "../credentials/password.ts";

// Ids are UUIDs; anything else is refused before it reaches a query.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Deliberately loose (one @, a dot in the domain, no spaces): deliverability is not ours to judge.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD_LENGTH = 8;
const CONTROL_CHARACTERS = /\p{Cc}/u;

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
    else if (name.length > maxLength) this.problems.push(`${field} must be at most ${maxLength} characters`);
    else if (CONTROL_CHARACTERS.test(name)) this.problems.push(`${field} must not contain control characters`);
    return name;
  }

  email(field: string, value: string): string {
    const email = value.trim();
    if (email.length > 254 || !EMAIL.test(email)) this.problems.push(`${field} must be an e-mail address`);
    return email;
  }

  password(field: string, value: string): string {
    if (value.length < MIN_PASSWORD_LENGTH) this.problems.push(`${field} must be at least ${MIN_PASSWORD_LENGTH} characters`);
    if (value.length > MAX_PASSWORD_LENGTH) this.problems.push(`${field} must be at most ${MAX_PASSWORD_LENGTH} characters`);
    return value;
  }

  /** Throws INVALID_ARGUMENT naming every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw invalidArgument(this.problems);
  }
}
