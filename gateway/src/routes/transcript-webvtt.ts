/** One cue's speaker and text, in seconds of the transcript's time line. */
export interface WebVttCue {
  speaker: string;
  start: number;
  end: number;
  text: string;
}

/** HH:MM:SS.mmm, as WebVTT's cue timings need (hours always: a meeting may last longer than one). */
function timestamp(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const secs = Math.floor((ms % 60_000) / 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  return `${pad(hours)}:${pad(minutes)}:${pad(secs)}.${pad(ms % 1000, 3)}`;
}

// A cue's text and a voice's annotation are text of the cue payload: `&`, `<` and `>` must be
// escaped (which also keeps `-->` out of it), and a line break would end the cue.
const escapeCueText = (text: string) =>
  text
    .replace(/[\r\n]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .trim();

/**
 * A transcript as a WebVTT file (W3C WebVTT): one cue per segment, in the order given, its
 * speaker as a voice span (`<v Ada Lovelace>text`), so a player or a parser knows who said what.
 */
export function toWebVtt(cues: WebVttCue[]): string {
  const blocks = cues.map((cue, index) => {
    const speaker = escapeCueText(cue.speaker) || "Speaker";
    return `${index + 1}\n${timestamp(cue.start)} --> ${timestamp(Math.max(cue.end, cue.start))}\n<v ${speaker}>${escapeCueText(cue.text)}</v>`;
  });
  return ["WEBVTT", ...blocks].join("\n\n") + "\n";
}
