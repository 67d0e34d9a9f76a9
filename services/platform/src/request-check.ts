import { invalidArgument } from "./errors.ts";
import { UUID } from "./contract/api-rules.ts";

/**
 * The one way a service validates a request: each rule records its problem on the check (and
 * answers the value it read), and `done()` throws one INVALID_ARGUMENT naming every problem, so a
 * caller can fix a request in one round. Services add their own rules as functions that take the
 * check (or, in identity, as methods of a subclass).
 */
export class RequestCheck {
  readonly #problems: string[] = [];

  /** Records problems; undefined or empty (no problem) is skipped. */
  add(...problems: (string | undefined)[]): this {
    for (const problem of problems) if (problem) this.#problems.push(problem);
    return this;
  }

  /** The problems recorded so far, in the order found. */
  get problems(): readonly string[] {
    return this.#problems;
  }

  get ok(): boolean {
    return this.#problems.length === 0;
  }

  /** An id field: a UUID, answered lower-cased; a problem naming `field` when it is not one. */
  uuid(field: string, value: string): string {
    if (!UUID.test(value)) this.add(`${field} must be a UUID`);
    return value.toLowerCase();
  }

  /** Throws INVALID_ARGUMENT naming every problem recorded; does nothing when there is none. */
  done(): void {
    if (this.#problems.length > 0) throw invalidArgument([...this.#problems]);
  }
}

/** A request whose only rule is one id field: the id lower-cased, or INVALID_ARGUMENT naming the field. */
export function requireUuid(field: string, value: string): string {
  const check = new RequestCheck();
  const id = check.uuid(field, value);
  check.done();
  return id;
}
