import type { Pool } from "@svc/platform/db";
import type { JoinLinkStore } from "../join-link-store.ts";
import { findJoinLink, findJoinLinkById, insertJoinLink, joinLinksOf, revokeJoinLink } from "./join-links.ts";

/** JoinLinkStore on the service's join_links table. */
export function pgJoinLinkStore(pool: Pool): JoinLinkStore {
  return {
    insert: (link) => insertJoinLink(pool, link),
    bySecretHash: (secretHash) => findJoinLink(pool, secretHash),
    byId: (linkId) => findJoinLinkById(pool, linkId),
    ofMeeting: (meetingId) => joinLinksOf(pool, meetingId),
    revoke: (meetingId, linkId) => revokeJoinLink(pool, meetingId, linkId),
  };
}
