import { notFound, type Authenticate, type Logger } from "@svc/platform";
import type { MeetingStore, StoredMeeting } from "../../meeting-store.ts";
import { isMeetingId } from "../../meeting-id.ts";
import type { JoinLinks } from "../../room/join-links.ts";
import type { MeetingLifecycle } from "../../room/meeting-lifecycle.ts";
import type { VisitStore } from "../../visit-store.ts";

/** OAuth scopes of each operation; API keys need none. */
export const scopes = {
  create: "meeting.create",
  read: "meeting.read",
  update: "meeting.update",
  delete: "meeting.delete",
  links: "meeting.links",
} as const;

export interface MeetingServiceDependencies {
  authenticate: Authenticate;
  meetings: MeetingStore;
  lifecycle: MeetingLifecycle;
  /** The externally visible origin of the join page, without a trailing slash. */
  publicUrl: string;
  logger: Logger;
  /** Told after a meeting whose media room was opened ended or was cancelled through the API, to close the room on the media server. */
  roomClosed: (meetingId: string) => void;
  links: JoinLinks;
  /** Who was in each meeting's room, and the organization's use. */
  visits: VisitStore;
  /** Told after who the meeting invites, or one of its links, changed: the people in its room get their new rights at once (room-rights.ts). */
  rightsChanged: (meetingId: string) => void;
}

export const joinUrl = (publicUrl: string, id: string) => `${publicUrl}/meeting/${id}`;

/**
 * The organization's meeting with this id, the one lookup most handlers start with: another
 * organization's meeting, an unknown id and a malformed one are all NOT_FOUND for the caller.
 */
export function meetingOfOrg(meetings: MeetingStore) {
  return async (orgId: string, id: string): Promise<StoredMeeting> => {
    const meeting = isMeetingId(id) ? await meetings.getOfOrg(orgId, id) : undefined;
    if (!meeting) throw notFound("Meeting");
    return meeting;
  };
}
