import type { LinkRole } from "./room-store.ts";

/** A personal join link as stored: never its secret, only the SHA-256 of it (db/join-links.ts). */
export interface JoinLinkRecord {
  id: string;
  meetingId: string;
  role: LinkRole;
  email: string | null;
  name: string | null;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** A link as a meeting's list shows it: with when it was made. */
export type ListedJoinLink = JoinLinkRecord & { createdAt: Date };

/**
 * The stored personal join links (docs/meeting-room.md), which room/join-links.ts judges: found by
 * the hash of their secret or by id, whatever their meeting and state. Postgres: db/pg-join-link-store.ts.
 */
export interface JoinLinkStore {
  /** Stores a link by the SHA-256 of its secret (the secret itself is never stored). */
  insert(link: Omit<JoinLinkRecord, "revokedAt"> & { secretHash: Buffer }): Promise<void>;
  /** The link whose secret hashes to `secretHash` (the caller judges it). */
  bySecretHash(secretHash: Buffer): Promise<JoinLinkRecord | undefined>;
  byId(linkId: string): Promise<JoinLinkRecord | undefined>;
  /** A meeting's links, newest first (at most LINK_LIST_LIMIT of db/join-links.ts). */
  ofMeeting(meetingId: string): Promise<ListedJoinLink[]>;
  /** Revokes a link of a meeting: `revoked` now, `already` revoked, or undefined when there is no such link. */
  revoke(meetingId: string, linkId: string): Promise<"revoked" | "already" | undefined>;
}
