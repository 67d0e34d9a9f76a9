import { invalidArgument, RequestCheck } from "@svc/platform";
import { EMAIL_ADDRESS, emailAddressMaxLength, LINE_BREAKING_OR_CONTROL, meetingLimits, parseOffsetDateTime } from "@svc/platform/contract";

// The date-time rule is shared with the webhook service (its delivery-log windows).
export { parseOffsetDateTime };

export const MAX_TITLE_LENGTH = meetingLimits.titleMaxLength;
export const MAX_ATTENDEES = meetingLimits.attendeesMax;
export const MAX_DURATION_MINUTES = meetingLimits.durationMaxMinutes;

/** A meeting request that passed every value rule (docs/decisions/0008-rest-contract-from-zod-schemas.md). */
export interface ValidMeetingRequest {
  /** Trimmed. */
  title: string;
  start: Date | null;
  /** The planned end (given as end or as a duration). */
  end: Date | null;
  /** Trimmed, deduplicated case-insensitively, first spelling and order kept. */
  attendees: string[];
}

export interface MeetingRequestInput {
  title: string;
  /** Absent (undefined) means no start; "" is not a date-time and is refused. */
  start?: string | undefined;
  /** The planned end; needs a start; not with durationMinutes. */
  end?: string | undefined;
  durationMinutes?: number | undefined;
  attendees: string[];
}

/** The fields an update may name (UpdateMeeting's update_mask paths). */
export const UPDATABLE_FIELDS = ["title", "start", "end", "duration_minutes", "attendees"] as const;
export type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

/**
 * Applies the creation rules in the service, so gRPC callers meet them too. Every broken rule is
 * collected and reported in one INVALID_ARGUMENT naming each field.
 */
export function validateMeetingRequest(input: MeetingRequestInput): ValidMeetingRequest {
  const check = new RequestCheck();

  const title = input.title.trim();
  if (title.length === 0) check.add("title is required and must not be empty");
  else if ([...input.title].length > MAX_TITLE_LENGTH) check.add(`title must be at most ${MAX_TITLE_LENGTH} characters`);
  else if (LINE_BREAKING_OR_CONTROL.test(title)) check.add("title must be one line without control characters");

  let start: Date | null = null;
  if (input.start !== undefined) {
    const parsed = parseOffsetDateTime(input.start);
    if (parsed.ok) start = parsed.date;
    else check.add(`start ${parsed.problem}`);
  }

  let end: Date | null = null;
  if (input.end !== undefined && input.durationMinutes !== undefined) {
    check.add("give end or duration, not both");
  } else if (input.end !== undefined) {
    const parsed = parseOffsetDateTime(input.end);
    if (!parsed.ok) check.add(`end ${parsed.problem}`);
    else if (input.start === undefined) check.add("end needs a start");
    else if (start && parsed.date.getTime() <= start.getTime()) check.add("end must be after start");
    else end = parsed.date;
  } else if (input.durationMinutes !== undefined) {
    const minutes = input.durationMinutes;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_DURATION_MINUTES)
      check.add(`duration must be a whole number of minutes from 1 to ${MAX_DURATION_MINUTES}`);
    else if (input.start === undefined) check.add("duration needs a start");
    else if (start) end = new Date(start.getTime() + minutes * 60_000);
  }

  const attendees: string[] = [];
  if (input.attendees.length > MAX_ATTENDEES) {
    check.add(`attendees must list at most ${MAX_ATTENDEES} e-mail addresses (got ${input.attendees.length})`);
  } else {
    const seen = new Set<string>();
    const invalid: string[] = [];
    for (const raw of input.attendees) {
      const address = raw.trim();
      if (!isEmailAddress(address)) {
        invalid.push(raw);
        continue;
      }
      const folded = address.toLowerCase();
      if (seen.has(folded)) continue;
      seen.add(folded);
      attendees.push(address);
    }
    if (invalid.length > 0) check.add(`attendees must be e-mail addresses; not valid: ${quoteSome(invalid)}`);
  }

  check.done();
  return { title, start, end, attendees };
}

/** The current details of a meeting, as an update starts from them. */
export interface CurrentDetails {
  title: string;
  start: Date | null;
  end: Date | null;
  attendees: string[];
}

/**
 * A partial update: the fields named in `fields` take their new value (a named start or end that
 * is absent clears it), the others keep theirs, and the result must pass the creation rules.
 * Moving the start of a meeting with a planned end keeps its length, as calendars do; clearing
 * the start clears the end.
 */
export function validateMeetingUpdate(
  fields: string[],
  input: Omit<MeetingRequestInput, "title"> & { title: string },
  current: CurrentDetails,
): ValidMeetingRequest {
  const unknown = fields.filter((field) => !(UPDATABLE_FIELDS as readonly string[]).includes(field));
  if (fields.length === 0) throw invalidArgument(["nothing to update: name at least one of title, start, end, duration, attendees"]);
  if (unknown.length > 0) throw invalidArgument([`unknown fields to update: ${unknown.join(", ")}`]);
  const named = (field: UpdatableField) => fields.includes(field);
  const iso = (date: Date | null) => date?.toISOString();
  const start = named("start") ? input.start : iso(current.start);
  let end: string | undefined;
  let durationMinutes: number | undefined;
  if (named("end") || named("duration_minutes")) {
    end = named("end") ? input.end : undefined;
    durationMinutes = named("duration_minutes") ? input.durationMinutes : undefined;
  } else if (named("start") && current.end && current.start) {
    const moved = start === undefined ? undefined : parseOffsetDateTime(start);
    end = moved?.ok ? new Date(moved.date.getTime() + (current.end.getTime() - current.start.getTime())).toISOString() : undefined;
  } else if (!named("start")) {
    end = iso(current.end);
  }
  return validateMeetingRequest({
    title: named("title") ? input.title : current.title,
    start,
    end,
    durationMinutes,
    attendees: named("attendees") ? input.attendees : current.attendees,
  });
}

/** The fields whose values differ (attendees compared in order, case-sensitively). */
export function changedFields(before: CurrentDetails, after: CurrentDetails): string[] {
  const time = (date: Date | null) => date?.getTime() ?? null;
  const changed: string[] = [];
  if (before.title !== after.title) changed.push("title");
  if (time(before.start) !== time(after.start)) changed.push("start");
  if (time(before.end) !== time(after.end)) changed.push("end");
  if (before.attendees.join("\n") !== after.attendees.join("\n")) changed.push("attendees");
  return changed;
}

function isEmailAddress(value: string): boolean {
  return value.length <= emailAddressMaxLength && EMAIL_ADDRESS.test(value);
}

/** The offending values, JSON-quoted and shortened, so a caller can find them in a long list. */
function quoteSome(values: string[]): string {
  const shown = values.slice(0, 5).map((value) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value));
  return values.length > shown.length ? `${shown.join(", ")} and ${values.length - shown.length} more` : shown.join(", ");
}
