import { h, replaceChildren } from "../../shared/dom.ts";
import { api, type Schema } from "../app-shell.ts";
import { alertBox } from "../widgets.ts";
import { spokenDuration } from "./meeting-format.ts";

type Attendance = Schema<"MeetingAttendance">;
type Person = Attendance["people"][number];

/** How often the page asks again who is in the room, while a meeting is live and its page is open. */
export const PRESENCE_REFRESH_MS = 3_000;

const roleWords: Record<Person["role"], string> = { host: "Host", attendee: "Attendee", guest: "Guest" };

/** Who the person is: their name in the room and, for an invited person, their address. */
function who(person: Person) {
  const name = person.name || (person.email ?? "Guest");
  return h(
    "span",
    { class: "person" },
    h("span", { class: "person-name" }, name),
    person.email && person.name ? h("span", { class: "muted person-email" }, person.email) : null,
  );
}

function attendanceState(person: Person, status: Attendance["status"]) {
  if (person.present) return h("span", { class: "badge on" }, "In the room");
  if (person.noShow) return h("span", { class: "badge off" }, "No-show");
  if (person.visits.length > 0) return h("span", { class: "badge neutral" }, "Came");
  return h("span", { class: "muted" }, status === "cancelled" ? "Did not come" : "Not yet");
}

// Visits are often minutes apart on one day: to the second, and the day said once.
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const clockFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });
const moment = (iso: string, withDay: boolean) =>
  h("time", { datetime: iso }, withDay ? `${dayFormat.format(new Date(iso))}, ${clockFormat.format(new Date(iso))}` : clockFormat.format(new Date(iso)));
const sameDay = (a: string, b: string) => dayFormat.format(new Date(a)) === dayFormat.format(new Date(b));

/** Every visit of the person: joined – left (or "now"), and its length. */
function visitList(person: Person) {
  if (person.visits.length === 0) return h("span", { class: "muted" }, "No visits");
  return h(
    "ol",
    { class: "visits" },
    person.visits.map((visit) =>
      h(
        "li",
        {},
        moment(visit.joinedAt, true),
        " – ",
        visit.leftAt ? moment(visit.leftAt, !sameDay(visit.joinedAt, visit.leftAt)) : h("strong", {}, "now"),
        h("span", { class: "muted" }, ` (${spokenDuration(visit.durationSeconds)})`),
      ),
    ),
  );
}

function presenceList(people: Person[]) {
  const present = people.filter((person) => person.present);
  if (present.length === 0) return h("p", { class: "empty" }, "Nobody is in the room right now.");
  return h(
    "ul",
    { class: "presence", "aria-label": "In the room now" },
    present.map((person) => {
      const open = person.visits.find((visit) => visit.leftAt === null);
      return h("li", {}, who(person), " ", h("span", { class: "muted" }, roleWords[person.role]), open ? [" · since ", moment(open.joinedAt, false)] : null);
    }),
  );
}

function attendanceTable(people: Person[], status: Attendance["status"]) {
  if (people.length === 0) return h("p", { class: "empty" }, "Nobody was invited, and nobody has entered the room.");
  return h(
    "table",
    { class: "attendance responsive" },
    h("caption", {}, "Attendance"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Person", "Invited or guest", "Visits", "Total time", "Attendance"].map((name) => h("th", { scope: "col" }, name)),
      ),
    ),
    h(
      "tbody",
      {},
      people.map((person) =>
        h(
          "tr",
          { "data-person": person.email ?? person.name },
          h("th", { scope: "row", "data-label": "Person" }, who(person)),
          h("td", { "data-label": "Invited or guest" }, person.invited ? `Invited ${roleWords[person.role].toLowerCase()}` : "Guest"),
          h("td", { "data-label": "Visits" }, visitList(person)),
          h("td", { "data-label": "Total time" }, person.visits.length === 0 ? "—" : spokenDuration(person.totalSeconds)),
          h("td", { "data-label": "Attendance" }, attendanceState(person, status)),
        ),
      ),
    ),
  );
}

/**
 * The meeting's people: while it is live, who is in the room now (asked again every few seconds
 * while the section is on screen, without the loading state); always, the attendance table of
 * each invited person and guest with their visits, total time and no-show. `onStatusChange`
 * hears when the meeting's status moved on (it ended while the page was open).
 */
export function attendanceSection(meetingId: string, initialStatus: Attendance["status"], onStatusChange: (status: Attendance["status"]) => void) {
  const presence = h("div", { class: "region" });
  const presenceBlock = h("div", { class: "presence-block", hidden: initialStatus !== "live" }, h("h3", {}, "In the room now"), presence);
  const table = h("div", { class: "region" });
  const section = h("section", { class: "card", "aria-labelledby": "people-title" }, h("h2", { id: "people-title" }, "People"), presenceBlock, table);
  let status = initialStatus;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const render = (attendance: Attendance) => {
    if (attendance.status !== status) {
      status = attendance.status;
      onStatusChange(status);
    }
    presenceBlock.hidden = status !== "live";
    replaceChildren(presence, presenceList(attendance.people));
    replaceChildren(table, attendanceTable(attendance.people, attendance.status));
  };
  const refresh = async (first: boolean) => {
    clearTimeout(timer);
    if (!first && !section.isConnected) return;
    const result = await api<Attendance>("GET", `/meeting/${encodeURIComponent(meetingId)}/attendance`);
    if (result.ok) render(result.body);
    else if (first) replaceChildren(table, alertBox(result.error));
    if (status === "live") timer = setTimeout(() => void refresh(false), PRESENCE_REFRESH_MS);
  };
  replaceChildren(table, h("p", { class: "loading", role: "status" }, "Loading attendance…"));
  void refresh(true);
  return section;
}
