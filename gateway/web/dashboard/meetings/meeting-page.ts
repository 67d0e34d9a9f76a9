import { h, replaceChildren } from "../../shared/dom.ts";
import { api, loadInto, type Schema, type ViewContext } from "../app-shell.ts";
import { recordingCard } from "../recordings.ts";
import { transcriptsList } from "../transcripts.ts";
import { copyField, resultBox, time } from "../widgets.ts";
import { attendanceSection } from "./attendance-section.ts";
import { meetingActions } from "./meeting-actions.ts";
import { meetingDeliveries } from "./meeting-deliveries.ts";
import { statusBadge } from "./meeting-format.ts";

type Meeting = Schema<"Meeting">;

function details(meeting: Meeting) {
  const people = (emails: string[]) =>
    emails.length === 0
      ? h("span", { class: "muted" }, "None")
      : h(
          "ul",
          {},
          emails.map((email) => h("li", {}, email)),
        );
  return h(
    "section",
    { class: "card", "aria-labelledby": "details-title" },
    h("h2", { id: "details-title" }, "Details"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Status"),
      h("dd", {}, statusBadge(meeting.status)),
      h("dt", {}, "Start"),
      h("dd", {}, time(meeting.start, "No start time")),
      h("dt", {}, "Planned end"),
      h("dd", {}, time(meeting.end, "None")),
      meeting.endedAt ? [h("dt", {}, "Ended"), h("dd", {}, time(meeting.endedAt))] : null,
      meeting.cancelledAt ? [h("dt", {}, "Cancelled"), h("dd", {}, time(meeting.cancelledAt))] : null,
      h("dt", {}, "Created"),
      h("dd", {}, time(meeting.createdAt)),
      h("dt", {}, "Hosts"),
      h("dd", {}, people(meeting.hosts)),
      h("dt", {}, "Attendees"),
      h("dd", {}, people(meeting.attendees)),
      h("dt", {}, "Lobby"),
      h("dd", {}, meeting.lobby ? "On: people without a host's link wait until a host admits them" : "Off"),
      h("dt", {}, "Screen sharing"),
      h("dd", {}, meeting.screenShare === "hosts" ? "Hosts only" : "Everyone"),
      h("dt", {}, "Recording"),
      h("dd", {}, meeting.recording === "off" ? "Off" : meeting.recording === "auto" ? "Starts by itself" : "Started by a host or the API"),
      h("dt", {}, "Transcription"),
      h("dd", {}, meeting.transcription === "on" ? "On: each recording is transcribed, who said what" : "Off"),
      h("dt", {}, "No-show after"),
      h("dd", {}, `${meeting.noShowAfterMinutes} min`),
      h("dt", {}, "Meeting id"),
      h("dd", {}, h("code", {}, meeting.id)),
    ),
    meeting.status === "ended" || meeting.status === "cancelled"
      ? null
      : copyField("Join URL", meeting.url, "Anyone holding this address can open the meeting's join page."),
  );
}

/** The meeting's recordings, as the Recordings page shows them (Play, Download; Delete for admins). */
function recordingsSection(meeting: Meeting, admin: boolean, say: (result: { ok: boolean; error: string }, success: string) => void) {
  const region = h("div", { class: "region" });
  const load = () =>
    void loadInto(
      region,
      () => api<Schema<"RecordingList">>("GET", `/meeting/${encodeURIComponent(meeting.id)}/recordings`),
      ({ recordings }) =>
        recordings.length === 0
          ? h("p", { class: "empty" }, meeting.recording === "off" ? "No recordings: recording is off for this meeting." : "No recordings yet.")
          : h(
              "ul",
              { class: "cards" },
              recordings.map((recording) => recordingCard(meeting, recording, { admin, say, reload: load })),
            ),
    );
  load();
  return h("section", { class: "card", "aria-labelledby": "recordings-title" }, h("h2", { id: "recordings-title" }, "Recordings"), region);
}

/** The meeting's transcripts beside its recordings: state, reader with search, downloads (../transcripts.ts). */
const transcriptsSection = (meeting: Meeting, admin: boolean, say: (result: { ok: boolean; error: string }, success: string) => void) =>
  h(
    "section",
    { class: "card", "aria-labelledby": "transcripts-title" },
    h("h2", { id: "transcripts-title" }, "Transcripts"),
    transcriptsList(meeting, { admin, say }),
  );

/**
 * One meeting (/dashboard/meetings/<id>): its details and join URL, who is in the room now (while
 * live) and who came or did not, its recordings and transcripts, the webhook deliveries about it, and what a
 * dashboard user may do to it. Everything is read from the API; a meeting of another
 * organization is "not found", as the API answers.
 */
export function meetingPageView({ main, user, navigate }: ViewContext, meetingId: string) {
  const notice = h("div", {});
  const say = (result: { ok: boolean; error: string }, success: string) => replaceChildren(notice, resultBox(result, success));
  const body = h("div", {});
  const heading = h("h1", { tabindex: "-1", id: "page-title" }, "Meeting");
  const back = h(
    "p",
    { class: "back" },
    h(
      "a",
      {
        href: "/dashboard/meetings",
        onclick: (event: Event) => {
          event.preventDefault();
          navigate("/dashboard/meetings");
        },
      },
      "← All meetings",
    ),
  );
  const load = () =>
    loadInto(
      body,
      () => api<Meeting>("GET", `/meeting/${encodeURIComponent(meetingId)}`),
      (meeting) => {
        document.title = `${meeting.title} · Meetings · svc dashboard`;
        replaceChildren(heading, meeting.title);
        return [
          details(meeting),
          attendanceSection(meeting.id, meeting.status, () => void load()),
          // What support staff act on once they saw who is there: end, cancel, a personal link.
          meetingActions(meeting, { say, reload: () => void load() }),
          recordingsSection(meeting, user.role === "admin", say),
          transcriptsSection(meeting, user.role === "admin", say),
          meetingDeliveries(meeting.id),
        ].filter((section) => section !== null);
      },
    );
  replaceChildren(main, back, heading, notice, body);
  void load();
}
