import { h, replaceChildren, uniqueId, type Child } from "../shared/dom.ts";
import { api, loadInto, type Schema } from "./app-shell.ts";
import { confirmedButton, time } from "./widgets.ts";

type Transcript = Schema<"Transcript">;
type Segment = Schema<"TranscriptSegment">;
type Meeting = Schema<"Meeting">;
type Say = (result: { ok: boolean; error: string }, success: string) => void;

const statusWords: Record<Transcript["status"], string> = {
  processing: "Transcribing…",
  ready: "Ready",
  failed: "Failed",
};

/** A moment of the meeting's time line as a clock reads it: `4:07`, `1:02:09`. */
export function clock(seconds: number): string {
  const whole = Math.floor(seconds);
  const [hours, minutes, rest] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const mm = hours > 0 ? String(minutes).padStart(2, "0") : String(minutes);
  return `${hours > 0 ? `${hours}:` : ""}${mm}:${String(rest).padStart(2, "0")}`;
}

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `text` with every case-insensitive occurrence of `query` in a <mark> (as text nodes: a transcript is never markup). */
function highlighted(text: string, query: string): Child[] {
  if (query === "") return [text];
  const parts: Child[] = [];
  let from = 0;
  for (const match of text.matchAll(new RegExp(escapeForPattern(query), "giu"))) {
    parts.push(text.slice(from, match.index), h("mark", {}, match[0]));
    from = match.index + match[0].length;
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * The reader: every segment with its speaker and its time on the meeting's time line, and a search
 * within the text that keeps the segments that contain it (highlighted) and says how many do, for
 * screen readers too. It filters what the API answered: the whole text is already on the page.
 */
function reader(transcript: Schema<"TranscriptWithSegments">) {
  const search = h("input", { type: "search", autocomplete: "off", spellcheck: "false", class: "transcript-search" });
  const searchId = uniqueId("transcript-search");
  search.id = searchId;
  const count = h("p", { class: "hint", role: "status", "aria-live": "polite" });
  const rows = transcript.segments.map((segment: Segment) => {
    const text = h("p", { class: "segment-text" }, segment.text);
    const row = h(
      "li",
      { class: "segment" },
      h(
        "p",
        { class: "segment-head" },
        h("span", { class: "speaker" }, segment.speaker || "Unnamed speaker"),
        " ",
        h("span", { class: "at" }, clock(segment.start)),
      ),
      text,
    );
    return { segment, row, text };
  });
  function filter() {
    const query = search.value.trim();
    let shown = 0;
    for (const { segment, row, text } of rows) {
      const hit = query === "" || segment.text.toLocaleLowerCase().includes(query.toLocaleLowerCase());
      row.hidden = !hit;
      if (hit) shown++;
      replaceChildren(text, highlighted(segment.text, hit ? query : ""));
    }
    count.textContent =
      query === ""
        ? `${rows.length} ${rows.length === 1 ? "passage" : "passages"}`
        : shown === 0
          ? `No passage contains “${query}”.`
          : `${shown} of ${rows.length} ${rows.length === 1 ? "passage contains" : "passages contain"} “${query}”.`;
  }
  search.addEventListener("input", filter);
  filter();
  return h(
    "div",
    { class: "transcript-reader" },
    h("div", { class: "field" }, h("label", { for: searchId }, "Search the text"), search),
    count,
    rows.length === 0
      ? h("p", { class: "empty" }, "Nobody was heard speaking.")
      : h(
          "ol",
          { class: "segments" },
          rows.map(({ row }) => row),
        ),
  );
}

const speakersOf = (transcript: Transcript) =>
  transcript.speakers.length === 0
    ? "—"
    : transcript.speakers.map((speaker) => (speaker.email ? `${speaker.name} (${speaker.email})` : speaker.name)).join(", ");

function lengthOf(seconds: number | null) {
  return seconds === null ? "—" : clock(seconds);
}

/** One transcript: its state (a failed one with the API's reason), Read and Download when ready, Delete for admins. */
export function transcriptCard(meeting: Meeting, transcript: Transcript, page: { admin: boolean; say: Say; reload: () => void }) {
  const { admin, say, reload } = page;
  const opened = h("div", { class: "transcript-open" });
  const downloads = h("div", {});
  const actions = h("p", { class: "actions" });
  const label = `the transcript of ${transcript.createdAt}`;
  if (transcript.status === "ready") {
    actions.append(
      h(
        "button",
        {
          type: "button",
          class: "primary",
          "aria-label": `Read ${label}`,
          onclick: () => void loadInto(opened, () => api<Schema<"TranscriptWithSegments">>("GET", `/transcripts/${encodeURIComponent(transcript.id)}`), reader),
        },
        "Read",
      ),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "aria-label": `Download ${label}`,
          onclick: async () => {
            const link = await api<Schema<"TranscriptAccessLink">>("GET", `/transcripts/${encodeURIComponent(transcript.id)}/access-link`);
            if (!link.ok) return say(link, "");
            replaceChildren(
              downloads,
              h(
                "p",
                { class: "downloads" },
                h("a", { href: link.body.webvttLink, download: "transcript.vtt" }, "Download as WebVTT (subtitles)"),
                h("a", { href: link.body.jsonLink, download: "transcript.json" }, "Download as JSON"),
              ),
              h(
                "p",
                { class: "hint" },
                "These links work without signing in until ",
                time(link.body.expiresAt),
                ": share them only with people who may read the transcript.",
              ),
            );
          },
        },
        "Download",
      ),
    );
  }
  if (admin && transcript.status !== "processing") {
    actions.append(
      confirmedButton({
        label: "Delete",
        ariaLabel: `Delete ${label}`,
        tone: "danger",
        confirm: {
          title: "Delete this transcript?",
          message: `The transcript of “${meeting.title}” is deleted for good; links to it stop working.`,
          action: "Delete transcript",
        },
        onConfirmed: async () => {
          const result = await api("DELETE", `/transcripts/${encodeURIComponent(transcript.id)}`);
          say(result, "The transcript was deleted.");
          if (result.ok) reload();
        },
      }),
    );
  }
  return h(
    "li",
    { class: "card transcript", "data-status": transcript.status },
    h("h3", {}, "Transcript · ", time(transcript.createdAt)),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Status"),
      h("dd", {}, statusWords[transcript.status], transcript.error ? ` (${transcript.error})` : ""),
      h("dt", {}, "Speakers"),
      h("dd", {}, speakersOf(transcript)),
      h("dt", {}, "Length"),
      h("dd", {}, lengthOf(transcript.durationSeconds)),
      h("dt", {}, "Language"),
      h("dd", {}, transcript.language),
    ),
    actions.childElementCount > 0 ? actions : null,
    downloads,
    opened,
  );
}

/**
 * A meeting's transcripts (docs/transcription.md), beside its recordings on the meeting's page and
 * on the Recordings page: each with its state, a reader with search, and WebVTT/JSON downloads
 * through the API's signed links. Deleting is offered to admins, as the API allows.
 */
export function transcriptsList(meeting: Meeting, page: { admin: boolean; say: Say }) {
  const region = h("div", { class: "region", "aria-live": "polite" });
  const load = () =>
    void loadInto(
      region,
      () => api<Schema<"TranscriptList">>("GET", `/meeting/${encodeURIComponent(meeting.id)}/transcripts`),
      ({ transcripts }) =>
        transcripts.length === 0
          ? h(
              "p",
              { class: "empty" },
              meeting.transcription === "off"
                ? "No transcripts: transcription is off for this meeting (its transcription setting)."
                : "No transcripts yet: a recording of this meeting is transcribed once it is finished.",
            )
          : h(
              "ul",
              { class: "cards" },
              transcripts.map((transcript) => transcriptCard(meeting, transcript, { ...page, reload: load })),
            ),
    );
  load();
  return region;
}
