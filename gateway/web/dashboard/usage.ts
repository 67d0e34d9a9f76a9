import { h, uniqueId } from "../shared/dom.ts";
import { api, loadInto, pageHeading, type Schema, type ViewContext } from "./app-shell.ts";
import { barChart } from "./usage/bar-chart.ts";

type Usage = Schema<"Usage">;

// The API's days are UTC days: they are named in UTC so a bar never shifts to a neighbour's date.
const dayFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", timeZone: "UTC" });
// The table's days without the year (its caption names the period): one line each at phone width.
const fullDayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

const dayName = (date: string) => dayFormat.format(new Date(`${date}T00:00:00Z`));
const minutes = (value: number) => `${numberFormat.format(value)} min`;

function storage(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${numberFormat.format(bytes / 1024 ** 3)} GB`;
  if (bytes >= 1024 ** 2) return `${numberFormat.format(bytes / 1024 ** 2)} MB`;
  if (bytes >= 1024) return `${numberFormat.format(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function figure(label: string, value: string, detail: string) {
  return h("div", { class: "figure" }, h("dt", {}, label), h("dd", {}, h("span", { class: "figure-value" }, value), h("span", { class: "muted" }, detail)));
}

/** A chart in its card, the card named by the chart's title. */
function chartCard(chart: Parameters<typeof barChart>[0]) {
  const titleId = uniqueId("chart-card");
  return h("section", { class: "card chart-card", "aria-labelledby": titleId }, h("h2", { id: titleId }, chart.title), barChart(chart));
}

function render(usage: Usage) {
  const totalMeetings = usage.days.reduce((sum, day) => sum + day.meetings, 0);
  const totalMinutes = usage.days.reduce((sum, day) => sum + day.participantMinutes, 0);
  const period = `${usage.days.length} days`;
  const [first, last] = [usage.days[0], usage.days.at(-1)];
  const range = first && last ? `${dayName(first.date)} – ${dayName(last.date)}, ${last.date.slice(0, 4)} (UTC)` : "";
  return [
    h(
      "dl",
      { class: "figures" },
      figure("Meetings held", numberFormat.format(totalMeetings), `in the last ${period}`),
      figure("Participant-minutes", numberFormat.format(totalMinutes), `in the last ${period}`),
      figure("Recorded", minutes(usage.recordingMinutes), `recordings started in the last ${period}`),
      figure("Storage", storage(usage.storageBytes), `${usage.recordingsStored} recording${usage.recordingsStored === 1 ? "" : "s"} stored now`),
    ),
    chartCard({
      title: "Meetings per day",
      description: `Meetings with someone in their room, each day from ${range}. The numbers are in the table below.`,
      className: "meetings-chart",
      wholeNumbers: true,
      bars: usage.days.map((day) => ({ label: dayName(day.date), value: day.meetings, text: `${day.meetings} meeting${day.meetings === 1 ? "" : "s"}` })),
    }),
    chartCard({
      title: "Participant-minutes per day",
      description: `Minutes people spent in meeting rooms, each day from ${range}. The numbers are in the table below.`,
      className: "minutes-chart",
      bars: usage.days.map((day) => ({ label: dayName(day.date), value: day.participantMinutes, text: minutes(day.participantMinutes) })),
    }),
    h(
      "table",
      { class: "usage-table" },
      h("caption", {}, `Per day, ${range}`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Day", "Meetings", "Participant-minutes"].map((name) => h("th", { scope: "col" }, name)),
        ),
      ),
      h(
        "tbody",
        {},
        [...usage.days]
          .reverse()
          .map((day) =>
            h(
              "tr",
              { "data-date": day.date },
              h("th", { scope: "row" }, h("time", { datetime: day.date }, fullDayFormat.format(new Date(`${day.date}T00:00:00Z`)))),
              h("td", {}, String(day.meetings)),
              h("td", {}, numberFormat.format(day.participantMinutes)),
            ),
          ),
      ),
    ),
  ];
}

/**
 * Usage: the organization's meetings and participant-minutes per day over the last 30 days, as
 * two bar charts read at a glance with every number in a table (newest day first), and the
 * minutes recorded and the storage its recordings take (GET /usage).
 */
export function usageView({ main }: ViewContext) {
  const region = h("div", { class: "region" });
  main.replaceChildren(...pageHeading("Usage", "How much your organization used meetings and recordings in the last 30 days. Days are UTC days."), region);
  void loadInto(region, () => api<Usage>("GET", "/usage?days=30"), render);
}
