/** SQLSTATE codes the identity store turns into answers (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";

export const sqlState = (error: unknown) => (error as { code?: unknown }).code;
