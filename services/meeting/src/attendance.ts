import type { StoredMeeting } from "./meeting-store.ts";
import type { RoomVisit } from "./visit-store.ts";

/** One person of a meeting's attendance: an invited host or attendee, or a guest. */
export interface AttendancePerson {
  /** The name given in the room (their latest visit's); empty for someone who never came. */
  name: string;
  /** An invited person's address as the meeting lists it; null for a guest. */
  email: string | null;
  role: "host" | "attendee" | "guest";
  invited: boolean;
  /** Oldest first. */
  visits: RoomVisit[];
  /** The sum of the visits; an open one counts until `until`. */
  totalSeconds: number;
  present: boolean;
}

const secondsOf = (visit: RoomVisit, until: Date) => Math.max(0, ((visit.leftAt ?? until).getTime() - visit.joinedAt.getTime()) / 1_000);

/**
 * Who came to a meeting: the one rule that tells people apart. An invited host or attendee is
 * their address (every visit with their personal link, whichever name they typed); anyone else is
 * a guest, one per participant identity (each entry through the plain join URL is a new grant, so
 * a guest who enters twice counts twice). Invited people come first, in the meeting's order,
 * whether they came or not; guests follow by first visit. `visits` oldest first; open visits
 * count until `until`.
 */
export function peopleOf(meeting: Pick<StoredMeeting, "hosts" | "attendees">, visits: RoomVisit[], until: Date): AttendancePerson[] {
  const invited = [
    ...meeting.hosts.map((email) => ({ email, role: "host" as const })),
    ...meeting.attendees.map((email) => ({ email, role: "attendee" as const })),
  ];
  const invitedAddresses = new Set(invited.map((person) => person.email.toLowerCase()));
  const byAddress = new Map<string, RoomVisit[]>();
  const byGuest = new Map<string, RoomVisit[]>();
  for (const visit of visits) {
    const address = visit.email?.toLowerCase();
    if (address && invitedAddresses.has(address)) byAddress.set(address, [...(byAddress.get(address) ?? []), visit]);
    else byGuest.set(visit.participantId, [...(byGuest.get(visit.participantId) ?? []), visit]);
  }
  const person = (theirs: RoomVisit[], fields: Pick<AttendancePerson, "email" | "role" | "invited">): AttendancePerson => ({
    ...fields,
    name: theirs.at(-1)?.displayName ?? "",
    visits: theirs,
    totalSeconds: Math.round(theirs.reduce((total, visit) => total + secondsOf(visit, until), 0)),
    present: theirs.some((visit) => visit.leftAt === null),
  });
  return [
    ...invited.map(({ email, role }) => person(byAddress.get(email.toLowerCase()) ?? [], { email, role, invited: true })),
    ...[...byGuest.values()].map((theirs) => person(theirs, { email: null, role: theirs[0]!.role ?? "guest", invited: false })),
  ];
}

/** People who entered the room at least once. */
export const joinedCountOf = (people: AttendancePerson[]) => people.filter((one) => one.visits.length > 0).length;

/**
 * Whether an invited person who never came counts as a no-show yet: once the meeting ended, or
 * once its no-show time (start + noShowAfterMinutes, when `meeting.no_show` is reported) passed.
 */
export function noShowsAreDue(meeting: Pick<StoredMeeting, "status" | "start" | "settings">, now: Date): boolean {
  if (meeting.status === "ended") return true;
  if (meeting.status === "cancelled" || !meeting.start) return false;
  return meeting.start.getTime() + meeting.settings.noShowAfterMinutes * 60_000 <= now.getTime();
}
