import { randomBytes } from "node:crypto";
import type { Stack } from "./stack.ts";
import { createTenant, type Tenant } from "./tenants.ts";

/**
 * A guesser's run against a sign-in form: a new tenant (the victim) and an address nobody has are
 * each sent `attempts` wrong passwords, in turn. Answers the victim and the status of every answer.
 */
export async function guessWrongPasswords(
  stack: Stack,
  attempts: number,
  signIn: (email: string, password: string) => Promise<{ status: number }>,
): Promise<{ victim: Tenant; victimAnswers: number[]; unknownAnswers: number[] }> {
  const victim = await createTenant(stack, { name: "Victim" });
  const unknown = `nobody-${randomBytes(4).toString("hex")}@example.com`;
  const victimAnswers: number[] = [];
  const unknownAnswers: number[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    victimAnswers.push((await signIn(victim.email, `wrong-${attempt}`)).status);
    unknownAnswers.push((await signIn(unknown, `wrong-${attempt}`)).status);
  }
  return { victim, victimAnswers, unknownAnswers };
}
