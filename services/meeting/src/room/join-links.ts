import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { invalidArgument, type Pool } from "@svc/platform";
import { findJoinLink, insertJoinLink, revokeJoinLink, type JoinLinkRecord, type LinkRole } from "../db/join-links.ts";
import type { StoredMeeting } from "../db/meetings.ts";
import { validateDisplayName } from "./display-name.ts";
import { hashRoomSecret, isRoomSecret, newRoomSecret } from "./room-secrets.ts";

const DAY_MS = 24 * 60 * 60 * 1_000;
const MAX_LIFETIME_MS = 90 * DAY_MS;

/** Why a link does not let anyone in, in words for the person holding it. */
const linkRefusal = (message: string, problem: string) => new ConnectError(message, Code.PermissionDenied, { "x-link-problem": problem });

export interface NewJoinLink {
  link: JoinLinkRecord;
  /** Shown once, in the URL's fragment; only its hash is kept. */
  secret: string;
}

/**
 * Personal join links (docs/meeting-room.md): the meeting's join URL plus a secret that says who
 * the holder is: an invited host or attendee (role from the invitation) or a named guest. Stored
 * as hashes; each expires, can be revoked, and works for its own meeting only.
 */
export function createJoinLinks(deps: { pool: Pool }) {
  const { pool } = deps;

  /** A new link for `meeting` (which the caller may manage and which has not closed). */
  async function create(
    meeting: StoredMeeting,
    request: { email: string; name: string; role: LinkRole | undefined; expiresAt: Date | undefined },
    now = new Date(),
  ): Promise<NewJoinLink> {
    const problems: string[] = [];
    let role: LinkRole = "guest";
    let email: string | null = null;
    const address = request.email.trim();
    if (address) {
      const folded = address.toLowerCase();
      const host = meeting.hosts.find((invited) => invited.toLowerCase() === folded);
      const attendee = meeting.attendees.find((invited) => invited.toLowerCase() === folded);
      if (!host && !attendee) problems.push("email must be one of the meeting's hosts or attendees (or ask for a guest link with role guest and a name)");
      else {
        role = host ? "host" : "attendee";
        email = host ?? attendee!;
        if (request.role !== undefined && request.role !== role) problems.push(`role must be ${role}, as invited, or left out`);
      }
    } else if (request.role !== "guest") {
      problems.push("give the email of an invited host or attendee, or role guest with a name");
    }
    let name: string | null = null;
    if (request.name.trim()) {
      try {
        name = validateDisplayName(request.name);
      } catch {
        problems.push("name must be 1-64 characters on one line, without control or invisible formatting characters");
      }
    } else if (role === "guest" && !address) {
      problems.push("name is required for a guest link");
    }
    const reference = meeting.end ?? meeting.start ?? now;
    const expiresAt = request.expiresAt ?? new Date(Math.max(reference.getTime(), now.getTime()) + DAY_MS);
    if (expiresAt.getTime() <= now.getTime()) problems.push("expiresAt must be in the future");
    else if (expiresAt.getTime() > now.getTime() + MAX_LIFETIME_MS) problems.push("expiresAt must be at most 90 days from now");
    if (problems.length > 0) throw invalidArgument(problems);

    const secret = newRoomSecret();
    const link = { id: randomUUID(), meetingId: meeting.id, role, email, name, expiresAt, revokedAt: null };
    await insertJoinLink(pool, { ...link, secretHash: hashRoomSecret(secret) });
    return { link, secret };
  }

  /** The link a join presents, when it lets its holder into `meetingId`; refused (403) otherwise, saying why. */
  async function resolve(meetingId: string, secret: string, now = new Date()): Promise<JoinLinkRecord> {
    const link = isRoomSecret(secret) ? await findJoinLink(pool, hashRoomSecret(secret)) : undefined;
    const problem = linkProblem(link, meetingId, now);
    if (problem) throw linkRefusal(problem.message, problem.code);
    return link!;
  }

  /** What the join page may say about a link before anyone joins: its person, or why it does not work. */
  async function describe(meetingId: string, secret: string, now = new Date()) {
    const link = isRoomSecret(secret) ? await findJoinLink(pool, hashRoomSecret(secret)) : undefined;
    const problem = linkProblem(link, meetingId, now);
    return problem ? { problem } : { link: link! };
  }

  return { create, resolve, describe, revoke: (meetingId: string, linkId: string) => revokeJoinLink(pool, meetingId, linkId) };
}

export type JoinLinks = ReturnType<typeof createJoinLinks>;

function linkProblem(link: JoinLinkRecord | undefined, meetingId: string, now: Date) {
  if (!link) return { code: "unknown", message: "This join link is not valid" };
  if (link.meetingId !== meetingId) return { code: "other_meeting", message: "This join link is for another meeting" };
  if (link.revokedAt) return { code: "revoked", message: "This join link was revoked" };
  if (link.expiresAt.getTime() <= now.getTime()) return { code: "expired", message: "This join link has expired" };
  return undefined;
}
