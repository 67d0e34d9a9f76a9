import { h } from "../../shared/dom.ts";
import type { Schema } from "../app-shell.ts";

// How the Meetings section words a meeting's facts, in one place for the list and the meeting page.

export type MeetingStatus = Schema<"Meeting">["status"];

const statusWords: Record<MeetingStatus, { label: string; tone: string }> = {
  scheduled: { label: "Scheduled", tone: "wait" },
  live: { label: "Live", tone: "on" },
  ended: { label: "Ended", tone: "neutral" },
  cancelled: { label: "Cancelled", tone: "off" },
};

export const statusLabel = (status: MeetingStatus) => statusWords[status].label;

/** The status as a badge (its word is the information; the colour only repeats it). */
export const statusBadge = (status: MeetingStatus) =>
  h("span", { class: `badge ${statusWords[status].tone}`, "data-status": status }, statusWords[status].label);

/** "1 h 05 min", "4 min 09 s", "12 s": a stay or a total, as a person reads it. */
export function spokenDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
  if (minutes > 0) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
  return `${seconds} s`;
}

/** The path of a meeting's page in the dashboard. */
export const meetingPagePath = (id: string) => `/dashboard/meetings/${encodeURIComponent(id)}`;
