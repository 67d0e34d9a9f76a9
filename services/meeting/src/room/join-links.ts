import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { invalidArgument } from "@svc/platform";
import type { JoinLinkRecord, JoinLinkStore } from "../join-link-store.ts";
import type { LinkRole } from "../room-store.ts";
import type { StoredMeeting } from "../meeting-store.ts";
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
export function createJoinLinks({ store }: { store: JoinLinkStore }) {
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
    await store.insert({ ...link, secretHash: hashRoomSecret(secret) });
    return { link, secret };
  }

  /** The link whose secret this is, unjudged (undefined for junk or an unknown secret): a join looks it up first to charge its own budget. */
  async function find(secret: string): Promise<JoinLinkRecord | undefined> {
    return isRoomSecret(secret) ? store.bySecretHash(hashRoomSecret(secret)) : undefined;
  }

  /** The link a join presents, with the role it gives now, when it lets its holder into `meeting`; refused (403) otherwise, saying why. */
  function admit(link: JoinLinkRecord | undefined, meeting: Invitation, now = new Date()): JoinLinkRecord {
    const standing = linkStanding(link, meeting, now);
    if ("problem" in standing) throw linkRefusal(standing.problem.message, standing.problem.code);
    return { ...link!, role: standing.role };
  }

  /** What the join page may say about a link before anyone joins: its person (with the role it gives now), or why it does not work. */
  async function describe(meeting: Invitation, secret: string, now = new Date()) {
    const link = await find(secret);
    const standing = linkStanding(link, meeting, now);
    return "problem" in standing ? { problem: standing.problem } : { link: { ...link!, role: standing.role } };
  }

  return {
    create,
    find,
    admit,
    describe,
    /** The meeting's links, newest first, each with what it gives now (its role, or why nothing). */
    async list(meeting: Invitation, now = new Date()) {
      return (await store.ofMeeting(meeting.id)).map((link) => ({ link, standing: linkStanding(link, meeting, now) }));
    },
    /** The link an admission was granted with, unjudged. */
    byId: (linkId: string) => store.byId(linkId),
    revoke: (meetingId: string, linkId: string) => store.revoke(meetingId, linkId),
  };
}

export type JoinLinks = ReturnType<typeof createJoinLinks>;

/** What a link's standing is judged against: the meeting and whom it invites now. */
export type Invitation = Pick<StoredMeeting, "id" | "hosts" | "attendees">;

export interface LinkProblem {
  code: "unknown" | "other_meeting" | "revoked" | "expired" | "uninvited";
  message: string;
}

/**
 * The one rule of what a personal link gives its holder, read live (at every join, every room API
 * call, every connection to the media room): nothing once it is revoked or expired; a guest link
 * gives `guest`; an invitee's link gives the role the meeting's invitation gives its e-mail now
 * (`host` while in `hosts`, `attendee` while in `attendees`), and nothing once the e-mail is in
 * neither. A link's role is never fixed when it is made: a PATCH of `hosts` or `attendees` applies
 * at once to every link, every room session and every grant.
 */
export function linkStanding(link: JoinLinkRecord | undefined, meeting: Invitation, now: Date): { role: LinkRole } | { problem: LinkProblem } {
  if (!link) return { problem: { code: "unknown", message: "This join link is not valid" } };
  if (link.meetingId !== meeting.id) return { problem: { code: "other_meeting", message: "This join link is for another meeting" } };
  if (link.revokedAt) return { problem: { code: "revoked", message: "This join link was revoked" } };
  if (link.expiresAt.getTime() <= now.getTime()) return { problem: { code: "expired", message: "This join link has expired" } };
  if (link.role === "guest" || link.email === null) return { role: "guest" };
  const folded = link.email.toLowerCase();
  const invited = (list: string[]) => list.some((address) => address.toLowerCase() === folded);
  if (invited(meeting.hosts)) return { role: "host" };
  if (invited(meeting.attendees)) return { role: "attendee" };
  return { problem: { code: "uninvited", message: "This join link is no longer valid: its holder is no longer invited to this meeting" } };
}
