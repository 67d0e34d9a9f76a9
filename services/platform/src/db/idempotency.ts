import { createHash } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorMetadata } from "../contract/error-metadata.ts";
import { inTransaction, type Pool, type PoolClient } from "./pool.ts";
import type { BatchedPurge } from "./purge.ts";

/**
 * Idempotency keys (IETF draft-ietf-httpapi-idempotency-key-header) for operations that create
 * something: the first request with a key runs and its response is stored for 24 hours, in the
 * same transaction as what it created; a retry with the same key and the same request gets that
 * response again; the same key with a different request is refused (422 at the gateway); a retry
 * while the first is still running is refused (409). Keys are scoped to the credential that sent
 * them (its user, and its OAuth client where there is one), inside the caller's organization: the
 * stored reply can hold someone's meeting and join URL, or a freshly issued signing secret, so
 * another credential of the same organization that learns a key must not get it back.
 * Each service that takes keys (meeting, webhook) keeps them in an `idempotency_keys` table of its
 * own schema, defined once in services/platform/migrations/idempotency_keys (migrateServiceSchema).
 */

/** Metadata telling the gateway which idempotency refusal this is (`mismatch`, `in-progress`). */
export const IDEMPOTENCY_REFUSAL = errorMetadata.idempotency;
export const IDEMPOTENCY_RETENTION_HOURS = 24;

export interface IdempotentRequest {
  orgId: string;
  /** Who sent it (see idempotentRequest): part of the key's scope. */
  principal: string;
  key: string;
  /** Identifies the request: the operation and its message (SHA-256 of both). */
  fingerprint: string;
}

/** The part of a caller that scopes its idempotency keys: the user, and the OAuth client if any. */
export interface IdempotencyPrincipal {
  orgId: string;
  userId: string;
  clientId: string;
}

/** The idempotent request for a caller's key (undefined without one): scoped to the caller's credential. */
export function idempotentRequest(
  caller: IdempotencyPrincipal,
  key: string | undefined,
  operation: string,
  message: Uint8Array,
): IdempotentRequest | undefined {
  if (key === undefined) return undefined;
  return { orgId: caller.orgId, principal: `${caller.userId}\0${caller.clientId}`, key, fingerprint: requestFingerprint(operation, message) };
}

/**
 * What is stored and locked for a key: SHA-256 of the principal and the key (64 hex characters,
 * within the column's limit), so the same key sent by two credentials is two keys.
 */
const scopedKey = (request: IdempotentRequest) => createHash("sha256").update(request.principal).update("\0").update(request.key).digest("hex");

/** What the stored response is turned into and back from (the webhook service encrypts, since it holds a secret). */
export interface ResponseCodec<T> {
  encode(value: T): Uint8Array;
  decode(stored: Uint8Array): T;
}

export const requestFingerprint = (operation: string, message: Uint8Array) => createHash("sha256").update(operation).update("\0").update(message).digest("hex");

/**
 * Runs `work` in a transaction, once per idempotent request. Without a request (no key sent) it
 * just runs it. Returns the value and whether it was replayed.
 */
export async function runIdempotently<T>(
  pool: Pool,
  request: IdempotentRequest | undefined,
  codec: ResponseCodec<T>,
  work: (client: PoolClient) => Promise<T>,
  /**
   * What the stored reply is about (a `subject_id` column the table must have): for replies that
   * hold a secret, so they can be deleted with their subject (deleteIdempotentReplies).
   */
  subjectOf?: (value: T) => string,
): Promise<{ value: T; replayed: boolean }> {
  if (!request) return { value: await inTransaction(pool, work), replayed: false };
  const key = scopedKey(request);
  return inTransaction(pool, async (client) => {
    // A second request with the same key while the first runs must not wait for it (and then
    // replay): the draft answers it with 409 at once.
    const { rows: locked } = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_xact_lock(hashtextextended('idempotency:' || $1 || ':' || $2, 0)) AS locked",
      [request.orgId, key],
    );
    if (!locked[0]!.locked) {
      throw new ConnectError("A request with this Idempotency-Key is still being processed; retry later", Code.Aborted, {
        [IDEMPOTENCY_REFUSAL]: "in-progress",
      });
    }
    await client.query("DELETE FROM idempotency_keys WHERE org_id = $1 AND created_at < now() - make_interval(hours => $2)", [
      request.orgId,
      IDEMPOTENCY_RETENTION_HOURS,
    ]);
    const { rows } = await client.query<{ fingerprint: string; response: Buffer }>(
      "SELECT fingerprint, response FROM idempotency_keys WHERE org_id = $1 AND key = $2",
      [request.orgId, key],
    );
    const stored = rows[0];
    if (stored) {
      if (stored.fingerprint !== request.fingerprint) {
        throw new ConnectError("This Idempotency-Key was already used with a different request", Code.InvalidArgument, { [IDEMPOTENCY_REFUSAL]: "mismatch" });
      }
      return { value: codec.decode(new Uint8Array(stored.response)), replayed: true };
    }
    const value = await work(client);
    const row = [request.orgId, key, request.fingerprint, Buffer.from(codec.encode(value))];
    if (subjectOf) {
      await client.query("INSERT INTO idempotency_keys (org_id, key, fingerprint, response, subject_id) VALUES ($1, $2, $3, $4, $5)", [
        ...row,
        subjectOf(value),
      ]);
    } else {
      await client.query("INSERT INTO idempotency_keys (org_id, key, fingerprint, response) VALUES ($1, $2, $3, $4)", row);
    }
    return { value, replayed: false };
  });
}

/** Deletes the stored replies about `subjectId` (say, a deleted subscription's signing secrets), in the caller's transaction. */
export async function deleteIdempotentReplies(client: PoolClient, orgId: string, subjectId: string): Promise<void> {
  await client.query("DELETE FROM idempotency_keys WHERE org_id = $1 AND subject_id = $2", [orgId, subjectId]);
}

/**
 * Removes stored responses past their 24 hours in every organization (a key's own organization
 * also removes its expired ones as it uses keys, but an organization that stops using keys would
 * otherwise keep its last day's responses for ever). For `purgeInBatches`.
 */
export const expiredIdempotencyKeys: BatchedPurge = {
  name: "idempotency_keys",
  sql: `DELETE FROM idempotency_keys WHERE ctid IN (
          SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $2) LIMIT $1)`,
  params: [IDEMPOTENCY_RETENTION_HOURS],
};
