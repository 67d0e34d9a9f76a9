import { h, replaceChildren } from "../shared/dom.ts";
import { api, pageHeading, type Schema, type ViewContext } from "./app-shell.ts";
import { alertBox, time } from "./widgets.ts";
import { meetingPagePath, statusBadge } from "./meetings/meeting-format.ts";
import { anyFilter, apiQuery, filterForm, filtersFromAddress, type Filters } from "./meetings/meeting-filters.ts";

type MeetingListItem = Schema<"MeetingListItem">;
type MeetingList = Schema<"MeetingList">;

/** One meeting as a row; at phone width the rows become cards (each cell says what it is: data-label). */
function meetingRow(meeting: MeetingListItem, navigate: (path: string) => void) {
  const cell = (label: string, ...content: Parameters<typeof h>[2][]) => h("td", { "data-label": label }, ...content);
  const invited = meeting.hosts.length + meeting.attendees.length;
  return h(
    "tr",
    { "data-meeting-id": meeting.id },
    h(
      "th",
      { scope: "row", "data-label": "Title" },
      h(
        "a",
        {
          href: meetingPagePath(meeting.id),
          onclick: (event: Event) => {
            event.preventDefault();
            navigate(meetingPagePath(meeting.id));
          },
        },
        meeting.title,
      ),
    ),
    cell("Status", statusBadge(meeting.status)),
    cell("Start", time(meeting.start, "No start time")),
    cell("Hosts", meeting.hosts.length === 0 ? h("span", { class: "muted" }, "None") : meeting.hosts.join(", ")),
    cell("Invited", String(invited)),
    cell("Joined", String(meeting.joinedCount)),
    cell(
      "Recording",
      meeting.recordingCount > 0
        ? h("span", { class: "badge on" }, meeting.recordingCount === 1 ? "1 recording" : `${meeting.recordingCount} recordings`)
        : meeting.recording === "off"
          ? h("span", { class: "muted" }, "Off")
          : h("span", { class: "badge neutral" }, meeting.recording === "auto" ? "Records itself" : "May be recorded"),
    ),
  );
}

/** What an empty list says: how meetings get here, or (filtered) that nothing matched and how to widen it. */
function emptyList(filtered: boolean, clear: () => void) {
  if (filtered) {
    return h(
      "div",
      { class: "empty" },
      h("p", {}, "No meetings match these filters. Try another word or a wider date range."),
      h("button", { type: "button", class: "secondary", onclick: clear }, "Clear filters"),
    );
  }
  return h(
    "div",
    { class: "empty" },
    h("p", {}, "Your organization has no meetings yet."),
    h(
      "p",
      {},
      "Meetings appear here when they are created through the API (",
      h("code", {}, "POST /api/v1/meeting"),
      ") with an API key, or by a scheduling app your organization connected. ",
      h("a", { href: "/docs" }, "Read the API reference"),
      ".",
    ),
  );
}

/** The table of a list's first page; "Show more meetings" appends the next page (keyset: the API's `nextPageToken`). */
function meetingTable(first: MeetingList, filters: Filters, navigate: (path: string) => void) {
  const rows = h("tbody", {});
  const more = h("div", { class: "toolbar" });
  const addPage = (page: MeetingList) => {
    rows.append(...page.meetings.map((meeting) => meetingRow(meeting, navigate)));
    const next = async (event: Event) => {
      (event.currentTarget as HTMLButtonElement).disabled = true;
      const result = await api<MeetingList>("GET", `/meeting?${apiQuery(filters, page.nextPageToken)}`);
      if (result.ok) addPage(result.body);
      else replaceChildren(more, alertBox(result.error));
    };
    replaceChildren(
      more,
      page.nextPageToken
        ? h("button", { type: "button", class: "secondary", onclick: next }, "Show more meetings")
        : h("p", { class: "muted" }, anyFilter(filters) ? "That is every meeting matching the filters." : "That is every meeting."),
    );
  };
  addPage(first);
  const table = h(
    "table",
    { class: "meetings responsive" },
    h("caption", { class: "visually-hidden" }, "Meetings, newest first"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Title", "Status", "Start", "Hosts", "Invited", "Joined", "Recording"].map((name) => h("th", { scope: "col" }, name)),
      ),
    ),
    rows,
  );
  return [table, more];
}

/**
 * Meetings: the organization's meetings, newest first, with their status, start, hosts, how many
 * were invited and how many came, and whether they were recorded; filtered by status, planned
 * start and a search of titles and invited addresses (the API's `search`), in keyset pages.
 * Every member sees this list.
 */
export function meetingsView({ main, navigate }: ViewContext) {
  const region = h("div", { class: "region", "aria-live": "polite" });
  const load = async (filters: Filters) => {
    region.setAttribute("aria-busy", "true");
    replaceChildren(region, h("p", { class: "loading", role: "status" }, "Loading meetings…"));
    const first = await api<MeetingList>("GET", `/meeting?${apiQuery(filters, null)}`);
    region.removeAttribute("aria-busy");
    if (first.status === 401) return void (window.location.href = "/dashboard/sign-in");
    if (!first.ok) {
      return replaceChildren(
        region,
        alertBox(first.error),
        h("button", { type: "button", class: "secondary", onclick: () => void load(filters) }, "Try again"),
      );
    }
    replaceChildren(region, first.body.meetings.length === 0 ? emptyList(anyFilter(filters), controls.clear) : meetingTable(first.body, filters, navigate));
  };
  const initial = filtersFromAddress();
  const controls = filterForm(initial, (filters) => void load(filters));
  replaceChildren(
    main,
    pageHeading("Meetings", "Your organization's meetings, newest first: who was invited, who came, and what each left behind."),
    controls.form,
    region,
  );
  void load(initial);
}
