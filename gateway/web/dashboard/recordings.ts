import { h, replaceChildren } from "../shared/dom.ts";
import { api, loadInto, pageHeading, type Schema, type ViewContext } from "./app-shell.ts";
import { transcriptsList } from "./transcripts.ts";
import { confirmedButton, field, resultBox, time } from "./widgets.ts";

type Recording = Schema<"Recording">;
type Meeting = Schema<"Meeting">;

const statusWords: Record<Recording["status"], string> = {
  recording: "Recording now",
  processing: "Finishing the file…",
  ready: "Ready",
  failed: "Failed",
};

function duration(seconds: number | null): string {
  if (seconds === null) return "—";
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
}

function size(bytes: number | null): string {
  if (bytes === null) return "—";
  return bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

export function recordingCard(
  meeting: Meeting,
  recording: Recording,
  page: { admin: boolean; say: (result: { ok: boolean; error: string }, success: string) => void; reload: () => void },
) {
  const { admin, say, reload } = page;
  const player = h("div", { class: "player" });
  const actions = h("p", { class: "actions" });
  if (recording.status === "ready") {
    const play = h("button", { type: "button", class: "primary", "aria-label": `Play the recording of ${recording.startedAt}` }, "Play");
    play.addEventListener("click", async () => {
      const link = await api<Schema<"RecordingAccessLink">>("GET", `/recordings/${encodeURIComponent(recording.id)}/access-link`);
      if (!link.ok) return say(link, "");
      const video = h(recording.layout === "audio" ? "audio" : "video", {
        controls: true,
        preload: "metadata",
        src: link.body.downloadLink,
        class: "recording-player",
      });
      replaceChildren(
        player,
        video,
        h(
          "p",
          { class: "hint" },
          "This link works without signing in until ",
          time(link.body.expiresAt),
          ": share it only with people who may watch the recording. ",
          h("a", { href: link.body.downloadLink, download: "" }, "Download the file"),
        ),
      );
      void (video as HTMLMediaElement).play().catch(() => undefined);
    });
    actions.append(play);
  }
  if (admin && (recording.status === "ready" || recording.status === "failed")) {
    actions.append(
      confirmedButton({
        label: "Delete",
        ariaLabel: `Delete the recording of ${recording.startedAt}`,
        tone: "danger",
        confirm: {
          title: "Delete this recording?",
          message: `The recording of “${meeting.title}” and its file are deleted for good; links to it stop working.`,
          action: "Delete recording",
        },
        onConfirmed: async () => {
          const result = await api("DELETE", `/recordings/${encodeURIComponent(recording.id)}`);
          say(result, "The recording was deleted.");
          if (result.ok) reload();
        },
      }),
    );
  }
  return h(
    "li",
    { class: "card recording", "data-status": recording.status },
    h("h2", {}, `${recording.layout === "audio" ? "Audio" : "Video"} recording · `, time(recording.startedAt)),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Status"),
      h("dd", {}, statusWords[recording.status], recording.error ? ` (${recording.error})` : ""),
      h("dt", {}, "Length"),
      h("dd", {}, duration(recording.durationSeconds)),
      h("dt", {}, "Size"),
      h("dd", {}, size(recording.sizeBytes)),
      h("dt", {}, "Started by"),
      h("dd", {}, recording.startedBy === "auto" ? "The meeting's automatic recording" : recording.startedBy === "host" ? "A host in the room" : "The API"),
    ),
    actions,
    player,
  );
}

/**
 * Meetings → Recordings: a meeting's recordings (pick one of the organization's recent meetings),
 * and its transcripts below them (./transcripts.ts), each with its status, length and size; Play (a signed access link in a video element, which
 * seeks with Range requests) and Download for ready ones, and Delete for admins. The API decides:
 * a member's delete would be refused, so members are not offered it.
 */
export function recordingsView({ main, user }: ViewContext) {
  const admin = user.role === "admin";
  const notice = h("div", {});
  const region = h("div", { class: "region", "aria-live": "polite" });
  const transcripts = h("div", {});
  const picker = h("select", { name: "meeting" }, h("option", { value: "" }, "Loading meetings…"));
  const say = (result: { ok: boolean; error: string }, success: string) => replaceChildren(notice, resultBox(result, success));

  function show(meeting: Meeting) {
    const reload = () => show(meeting);
    replaceChildren(transcripts, h("h2", { class: "section-title" }, "Transcripts"), transcriptsList(meeting, { admin, say }));
    void loadInto(
      region,
      () => api<Schema<"RecordingList">>("GET", `/meeting/${encodeURIComponent(meeting.id)}/recordings`),
      ({ recordings }) =>
        recordings.length === 0
          ? h(
              "p",
              { class: "empty" },
              meeting.recording === "off"
                ? "This meeting has no recordings: recording is off for it (its recording setting)."
                : "This meeting has no recordings yet.",
            )
          : h(
              "ul",
              { class: "cards" },
              recordings.map((recording) => recordingCard(meeting, recording, { admin, say, reload })),
            ),
    );
  }

  replaceChildren(
    main,
    pageHeading(
      "Recordings",
      "Recordings of your organization's meetings and their transcripts. Anyone holding a download link can watch or read it until the link expires.",
    ),
    notice,
    admin ? null : h("p", { class: "notice info" }, "Only admins of your organization can delete recordings. You can watch and download them."),
    h("form", { class: "card inline-form", onsubmit: (event: Event) => event.preventDefault() }, field("Meeting", picker)),
    region,
    transcripts,
  );

  void api<Schema<"MeetingList">>("GET", "/meeting?pageSize=50").then((result) => {
    if (!result.ok) return replaceChildren(region, resultBox(result, ""));
    const meetings = result.body.meetings;
    if (meetings.length === 0) {
      replaceChildren(picker, h("option", { value: "" }, "No meetings yet"));
      return replaceChildren(region, h("p", { class: "empty" }, "Your organization has no meetings yet."));
    }
    replaceChildren(
      picker,
      meetings.map((meeting) =>
        h(
          "option",
          { value: meeting.id },
          `${meeting.title} · ${new Date(meeting.start ?? meeting.createdAt).toLocaleString()}${meeting.recording === "off" ? "" : " · recorded"}`,
        ),
      ),
    );
    const chosen = () => meetings.find((meeting) => meeting.id === picker.value) ?? meetings[0]!;
    picker.addEventListener("change", () => show(chosen()));
    show(chosen());
  });
}
