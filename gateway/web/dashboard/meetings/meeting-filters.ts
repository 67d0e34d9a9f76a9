import { h } from "../../shared/dom.ts";
import { field } from "../widgets.ts";
import type { MeetingStatus } from "./meeting-format.ts";

/** The list's filters as the page's address keeps them (?status=&from=&to=&q=), so a filtered list can be shared and reloaded. */
export interface Filters {
  status: MeetingStatus | "";
  /** Local calendar days, YYYY-MM-DD: starts on or after `from`, on or before `to`. */
  from: string;
  to: string;
  search: string;
}

export const PAGE_SIZE = 25;

export function filtersFromAddress(): Filters {
  const query = new URLSearchParams(window.location.search);
  const status = query.get("status") ?? "";
  return {
    status: ["scheduled", "live", "ended", "cancelled"].includes(status) ? (status as MeetingStatus) : "",
    from: query.get("from") ?? "",
    to: query.get("to") ?? "",
    search: query.get("q") ?? "",
  };
}

/** Keeps the filters in the page's address (replacing it: each change is not a step back). */
function rememberInAddress(filters: Filters) {
  const address = new URLSearchParams();
  if (filters.status) address.set("status", filters.status);
  if (filters.from) address.set("from", filters.from);
  if (filters.to) address.set("to", filters.to);
  if (filters.search.trim()) address.set("q", filters.search.trim());
  const query = address.toString();
  history.replaceState(null, "", `/dashboard/meetings${query ? `?${query}` : ""}`);
}

/** The API query of the filters: a local day's start as an instant; `to` includes its whole day. */
export function apiQuery(filters: Filters, pageToken: string | null): string {
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

export const anyFilter = (filters: Filters) => Boolean(filters.status || filters.from || filters.to || filters.search.trim());

/**
 * The filter form (a search landmark): search, status and a range of planned start. `onApply`
 * hears the filters each time they are applied; `clear()` empties them and applies that.
 */
export function filterForm(initial: Filters, onApply: (filters: Filters) => void) {
  const search = h("input", { type: "search", name: "q", value: initial.search, maxlength: 200, autocomplete: "off" });
  const status = h(
    "select",
    { name: "status" },
    [
      ["", "Any status"],
      ["scheduled", "Scheduled"],
      ["live", "Live"],
      ["ended", "Ended"],
      ["cancelled", "Cancelled"],
    ].map(([value, label]) => h("option", { value, selected: value === initial.status }, label)),
  );
  const from = h("input", { type: "date", name: "from", value: initial.from });
  const to = h("input", { type: "date", name: "to", value: initial.to });
  const apply = () => {
    const next: Filters = { status: status.value as Filters["status"], from: from.value, to: to.value, search: search.value };
    rememberInAddress(next);
    onApply(next);
  };
  const clear = () => {
    for (const control of [search, status, from, to]) control.value = "";
    apply();
  };
  const form = h(
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
  );
  return { form, clear };
}
