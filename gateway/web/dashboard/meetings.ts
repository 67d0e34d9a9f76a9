import { h, replaceChildren } from "../shared/dom.ts";
import { api, pageHeading, type Schema, type ViewContext } from "./app-shell.ts";
import { alertBox, field, time } from "./widgets.ts";
import { meetingPagePath, statusBadge, type MeetingStatus } from "./meetings/meeting-format.ts";

type MeetingListItem = Schema<"MeetingListItem">;

/** The list's filters as the page's address keeps them (?status=&from=&to=&q=), so a filtered list can be shared and reloaded. */
interface Filters {
  status: MeetingStatus | "";
  /** Local calendar days, YYYY-MM-DD: starts on or after `from`, on or before `to`. */
  from: string;
  to: string;
  search: string;
}

const PAGE_SIZE = 25;

function filtersFromAddress(): Filters {
  const query = new URLSearchParams(window.location.search);
  const status = query.get("status") ?? "";
  return {
    status: ["scheduled", "live", "ended", "cancelled"].includes(status) ? (status as MeetingStatus) : "",
    from: query.get("from") ?? "",
    to: query.get("to") ?? "",
    search: query.get("q") ?? "",
  };
}

/** The API query of the filters: a local day's start as an instant; `to` includes its whole day. */
function apiQuery(filters: Filters, pageToken: string | null): string {
  const query = new URLSearchParams({ pageSize: String(PAGE_SIZE) });
  if (filters.status) query.set("status", filters.status);
  if (filters.search.trim()) query.set("search", filters.search.trim());
  if (filters.from) query.set("startFrom", new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.to) {
    const dayAfter = new Date(`${filters.to}T00:00:00`);
    dayAfter.setDate(dayAfter.getDate() + 1);
    query.set("startBefore", dayAfter.toISOString());
  }
  if (pageToken) query.set("pageToken", pageToken);
  return query.toString();
}

const anyFilter = (filters: Filters) => Boolean(filters.status || filters.from || filters.to || filters.search.trim());

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

/**
 * Meetings: the organization's meetings, newest first, with their status, start, hosts, how many
 * were invited and how many came, and whether they were recorded; filtered by status, planned
 * start and a search of titles and invited addresses (the API's `search`), in keyset pages
 * ("Show more" continues from the API's `nextPageToken`). Every member sees this list.
 */
export function meetingsView({ main, navigate }: ViewContext) {
  const filters = filtersFromAddress();
  const search = h("input", { type: "search", name: "q", value: filters.search, maxlength: 200, autocomplete: "off" });
  const status = h(
    "select",
    { name: "status" },
    [
      ["", "Any status"],
      ["scheduled", "Scheduled"],
      ["live", "Live"],
      ["ended", "Ended"],
      ["cancelled", "Cancelled"],
    ].map(([value, label]) => h("option", { value, selected: value === filters.status }, label)),
  );
  const from = h("input", { type: "date", name: "from", value: filters.from });
  const to = h("input", { type: "date", name: "to", value: filters.to });
  const region = h("div", { class: "region", "aria-live": "polite" });

  const apply = () => {
    const next: Filters = { status: status.value as Filters["status"], from: from.value, to: to.value, search: search.value };
    const address = new URLSearchParams();
    if (next.status) address.set("status", next.status);
    if (next.from) address.set("from", next.from);
    if (next.to) address.set("to", next.to);
    if (next.search.trim()) address.set("q", next.search.trim());
    const query = address.toString();
    history.replaceState(null, "", `/dashboard/meetings${query ? `?${query}` : ""}`);
    void load(next);
  };
  const clear = () => {
    search.value = "";
    status.value = "";
    from.value = "";
    to.value = "";
    apply();
  };

  async function load(current: Filters) {
    region.setAttribute("aria-busy", "true");
    replaceChildren(region, h("p", { class: "loading", role: "status" }, "Loading meetings…"));
    const first = await api<Schema<"MeetingList">>("GET", `/meeting?${apiQuery(current, null)}`);
    region.removeAttribute("aria-busy");
    if (first.status === 401) return void (window.location.href = "/dashboard/sign-in");
    if (!first.ok) {
      return replaceChildren(
        region,
        alertBox(first.error),
        h("button", { type: "button", class: "secondary", onclick: () => void load(current) }, "Try again"),
      );
    }
    if (first.body.meetings.length === 0) {
      return replaceChildren(
        region,
        anyFilter(current)
          ? h(
              "div",
              { class: "empty" },
              h("p", {}, "No meetings match these filters. Try another word or a wider date range."),
              h("button", { type: "button", class: "secondary", onclick: clear }, "Clear filters"),
            )
          : h(
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
            ),
      );
    }
    const rows = h("tbody", {});
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
    const more = h("div", { class: "toolbar" });
    const addPage = (page: Schema<"MeetingList">) => {
      rows.append(...page.meetings.map((meeting) => meetingRow(meeting, navigate)));
      replaceChildren(
        more,
        page.nextPageToken
          ? h(
              "button",
              {
                type: "button",
                class: "secondary",
                onclick: async (event: Event) => {
                  const button = event.currentTarget as HTMLButtonElement;
                  button.disabled = true;
                  const next = await api<Schema<"MeetingList">>("GET", `/meeting?${apiQuery(current, page.nextPageToken)}`);
                  if (next.ok) addPage(next.body);
                  else replaceChildren(more, alertBox(next.error));
                },
              },
              "Show more meetings",
            )
          : h("p", { class: "muted" }, "That is every meeting" + (anyFilter(current) ? " matching the filters." : ".")),
      );
    };
    addPage(first.body);
    replaceChildren(region, table, more);
  }

  replaceChildren(
    main,
    pageHeading("Meetings", "Your organization's meetings, newest first: who was invited, who came, and what each left behind."),
    h(
      "form",
      {
        class: "card filters",
        role: "search",
        "aria-label": "Find meetings",
        onsubmit: (event: Event) => {
          event.preventDefault();
          apply();
        },
      },
      field("Search", search, "A word of the title, or an invited person's e-mail address."),
      field("Status", status),
      field("Starts on or after", from),
      field("Starts on or before", to),
      h(
        "div",
        { class: "actions filter-actions" },
        h("button", { type: "submit", class: "primary" }, "Find meetings"),
        h("button", { type: "button", class: "secondary", onclick: clear }, "Clear"),
      ),
    ),
    region,
  );
  void load(filters);
}
