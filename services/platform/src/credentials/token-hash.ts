import { createHash } from "node:crypto";

/**
 * SHA-256 (hex) of a high-entropy token: what is stored for API keys (and, later, OAuth tokens)
 * and what names a credential in the verification cache. A slow hash adds nothing for values
 * with 256 random bits; lookups by hash are exact matches on an index, so nothing is compared
 * byte by byte in application code.
 */
export const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");
