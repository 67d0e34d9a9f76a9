import { invalidArgument, RequestCheck } from "@svc/platform";
import { EMAIL_ADDRESS, emailAddressMaxLength, LINE_BREAKING_OR_CONTROL, meetingLimits, parseOffsetDateTime } from "@svc/platform/contract";
import type { MeetingDetails, MeetingSettings, RecordingMode, ScreenShare, TranscriptionMode } from "./meeting-store.ts";

// The date-time rule is shared with the webhook service (its delivery-log windows).
export { parseOffsetDateTime };

export const MAX_TITLE_LENGTH = meetingLimits.titleMaxLength;
export const MAX_ATTENDEES = meetingLimits.attendeesMax;
export const MAX_DURATION_MINUTES = meetingLimits.durationMaxMinutes;
export const MAX_HOSTS = meetingLimits.hostsMax;

export const DEFAULT_SETTINGS: MeetingSettings = {
  lobby: false,
  screenShare: "everyone",
  noShowAfterMinutes: meetingLimits.noShowAfterMinutesDefault,
  recording: "off",
  transcription: "off",
};

const RECORDING_MODES: readonly string[] = ["off", "manual", "auto"] satisfies RecordingMode[];
export const TRANSCRIPTION_MODES: readonly string[] = ["off", "on"] satisfies TranscriptionMode[];

/** Settings a request gives; an absent one keeps the default (create) or the current value (update). */
export interface SettingsInput {
  lobby?: boolean | undefined;
  screenShare?: ScreenShare | undefined;
  noShowAfterMinutes?: number | undefined;
  recording?: RecordingMode | undefined;
  transcription?: TranscriptionMode | undefined;
}

/**
 * A meeting request that passed every value rule (docs/decisions/0008-rest-contract-from-zod-schemas.md):
 * the title trimmed; the planned end given as end or as a duration; attendees (and hosts alike)
 * trimmed, deduplicated case-insensitively, first spelling and order kept, attendees without the hosts.
 */
export type ValidMeetingRequest = MeetingDetails;

export interface MeetingRequestInput {
  title: string;
  /** Absent (undefined) means no start; "" is not a date-time and is refused. */
  start?: string | undefined;
  /** The planned end; needs a start; not with durationMinutes. */
  end?: string | undefined;
  durationMinutes?: number | undefined;
  attendees: string[];
  hosts?: string[] | undefined;
  settings?: SettingsInput | undefined;
}

/** The fields an update may name (UpdateMeeting's update_mask paths). */
export const UPDATABLE_FIELDS = [
  "title",
  "start",
  "end",
  "duration_minutes",
  "attendees",
  "hosts",
  "settings.lobby",
  "settings.screen_share",
  "settings.no_show_after_minutes",
  "settings.recording",
  "settings.transcription",
] as const;
export type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

/**
 * Applies the creation rules in the service, so gRPC callers meet them too. Every broken rule is
 * collected and reported in one INVALID_ARGUMENT naming each field.
 */
export function validateMeetingRequest(input: MeetingRequestInput, defaults: MeetingSettings = DEFAULT_SETTINGS): ValidMeetingRequest {
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

  // Hosts first: someone listed as both is a host.
  const seen = new Set<string>();
  const hosts = addressList("hosts", input.hosts ?? [], MAX_HOSTS, seen, check);
  const attendees = addressList("attendees", input.attendees, MAX_ATTENDEES, seen, check);

  const settings = { ...defaults };
  const given = input.settings ?? {};
  if (given.lobby !== undefined) settings.lobby = given.lobby;
  if (given.screenShare !== undefined) {
    if (given.screenShare === "everyone" || given.screenShare === "hosts") settings.screenShare = given.screenShare;
    else check.add("screenShare must be everyone or hosts");
  }
  if (given.noShowAfterMinutes !== undefined) {
    const minutes = given.noShowAfterMinutes;
    const { noShowAfterMinutesMin: min, noShowAfterMinutesMax: max } = meetingLimits;
    if (Number.isInteger(minutes) && minutes >= min && minutes <= max) settings.noShowAfterMinutes = minutes;
    else check.add(`noShowAfterMinutes must be a whole number of minutes from ${min} to ${max}`);
  }
  if (given.recording !== undefined) {
    if (RECORDING_MODES.includes(given.recording)) settings.recording = given.recording;
    else check.add("recording must be off, manual or auto");
  }
  if (given.transcription !== undefined) {
    if (TRANSCRIPTION_MODES.includes(given.transcription)) settings.transcription = given.transcription;
    else check.add("transcription must be off or on");
  }

  check.done();
  return { title, start, end, attendees, hosts, settings };
}

/** Trimmed, valid addresses, each once (ignoring case, across the lists that share `seen`). */
function addressList(field: string, raw: string[], max: number, seen: Set<string>, check: RequestCheck): string[] {
  if (raw.length > max) {
    check.add(`${field} must list at most ${max} e-mail addresses (got ${raw.length})`);
    return [];
  }
  const addresses: string[] = [];
  const invalid: string[] = [];
  for (const value of raw) {
    const address = value.trim();
    if (!isEmailAddress(address)) {
      invalid.push(value);
      continue;
    }
    const folded = address.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    addresses.push(address);
  }
  if (invalid.length > 0) check.add(`${field} must be e-mail addresses; not valid: ${quoteSome(invalid)}`);
  return addresses;
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
  current: MeetingDetails,
): ValidMeetingRequest {
  const unknown = fields.filter((field) => !(UPDATABLE_FIELDS as readonly string[]).includes(field));
  if (fields.length === 0)
    throw invalidArgument([
      "nothing to update: name at least one of title, start, end, duration, attendees, hosts, lobby, screenShare, noShowAfterMinutes, recording, transcription",
    ]);
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
    hosts: named("hosts") ? (input.hosts ?? []) : current.hosts,
    settings: {
      lobby: named("settings.lobby") ? input.settings?.lobby : current.settings.lobby,
      screenShare: named("settings.screen_share") ? input.settings?.screenShare : current.settings.screenShare,
      noShowAfterMinutes: named("settings.no_show_after_minutes") ? input.settings?.noShowAfterMinutes : current.settings.noShowAfterMinutes,
      recording: named("settings.recording") ? input.settings?.recording : current.settings.recording,
      transcription: named("settings.transcription") ? input.settings?.transcription : current.settings.transcription,
    },
  });
}

/** The fields whose values differ (attendees compared in order, case-sensitively). */
export function changedFields(before: MeetingDetails, after: MeetingDetails): string[] {
  const time = (date: Date | null) => date?.getTime() ?? null;
  const changed: string[] = [];
  if (before.title !== after.title) changed.push("title");
  if (time(before.start) !== time(after.start)) changed.push("start");
  if (time(before.end) !== time(after.end)) changed.push("end");
  if (before.attendees.join("\n") !== after.attendees.join("\n")) changed.push("attendees");
  if (before.hosts.join("\n") !== after.hosts.join("\n")) changed.push("hosts");
  if (before.settings.lobby !== after.settings.lobby) changed.push("lobby");
  if (before.settings.screenShare !== after.settings.screenShare) changed.push("screenShare");
  if (before.settings.noShowAfterMinutes !== after.settings.noShowAfterMinutes) changed.push("noShowAfterMinutes");
  if (before.settings.recording !== after.settings.recording) changed.push("recording");
  if (before.settings.transcription !== after.settings.transcription) changed.push("transcription");
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
