import type { z } from "zod";
import { HttpError } from "./errors.ts";

/** Every problem zod found, once each, in one message (the specification's "names each field"). */
const problemsOf = (error: z.ZodError) => [...new Set(error.issues.map((issue) => issue.message))].join("; ");

/** A JSON request body checked against its contract schema; 400 naming every wrong field otherwise. */
export function parseJsonBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const value = body ?? {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new HttpError(400, "Request body must be a JSON object");
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, problemsOf(parsed.error));
  return parsed.data;
}

/** A query string checked against its contract schema; 400 naming every wrong parameter otherwise. */
export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.output<T> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new HttpError(400, problemsOf(parsed.error));
  return parsed.data;
}
