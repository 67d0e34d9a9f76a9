import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { Router, type Request, type Response } from "express";
import type { Logger } from "@svc/platform";
import { MeetingStatus, type GetJoinInfoResponse } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import type { Assets } from "./assets.ts";
import { html, type SafeHtml } from "@svc/platform";
import { sendPage } from "./page-document.ts";
import { pageSecurity } from "./page-security.ts";

/** The browser bundle of this page: gateway/web/meeting-room. */
const ENTRY = "meeting-room";

export interface MeetingPageDependencies {
  clients: Clients;
  logger: Logger;
  assets: Assets;
  livekitPublicUrl: string;
}

/**
 * The meeting room at {PUBLIC_URL}/meeting/:id. Anyone with the link may open it (the unguessable
 * id is the capability). The server renders the title and state; for a meeting one can join it
 * mounts the room's script (gateway/web/meeting-room), which reads the `data-*` attributes of
 * <main>, asks POST /api/v1/meeting/:id/join for a grant and connects to LiveKit. Ended,
 * cancelled and unknown meetings are complete pages without script.
 */
export function meetingPageRoutes({ clients, logger, assets, livekitPublicUrl }: MeetingPageDependencies): Router {
  const router = Router();
  /** The meeting, then (for a meeting that exists) the sites its organization lets frame it: before the headers. */
  const load = async (req: Request<{ id: string }>, res: Response, next: () => void) => {
    try {
      // Shorter than the default call timeout: a person waits for this page.
      const info = await clients.meetingPage.getJoinInfo({ id: req.params.id }, { timeoutMs: 5_000 });
      res.locals.meeting = { info, embedOrigins: await embedOriginsOf(info.orgId) } satisfies LoadedMeeting;
    } catch (error) {
      res.locals.meeting = { error } satisfies LoadedMeeting;
    }
    next();
  };
  /** Without the list (identity unreachable) the page still works, only not in a frame. */
  const embedOriginsOf = async (orgId: string) =>
    clients.embedding.getEmbedOrigins({ orgId }, { timeoutMs: 2_000 }).then(
      ({ origins }) => origins,
      (error: unknown) => {
        logger.warn({ err: error }, "meeting page: embed origins unavailable; the page refuses every frame");
        return [];
      },
    );
  const embedOrigins = (res: Response) => {
    const meeting = res.locals.meeting as LoadedMeeting;
    return "info" in meeting ? meeting.embedOrigins : [];
  };
  router.get("/meeting/:id", load, pageSecurity({ livekitPublicUrl, embedOrigins: (res) => embedOrigins(res as Response) }), (_req, res) => {
    // The page changes when the meeting ends; the link is a capability, so keep it out of caches and indexes.
    res.set({ "Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow" });
    const meeting = res.locals.meeting as LoadedMeeting;
    if ("info" in meeting) {
      const { info } = meeting;
      const status = statusName(info.status);
      const joinable = status === "scheduled" || status === "live";
      sendPage(res, assets, {
        status: 200,
        title: `${info.title} · svc`,
        entry: ENTRY,
        styleOnly: !joinable,
        bodyClass: joinable ? "view-loading" : "view-state",
        body: meetingView(info, status, joinable, meeting.embedOrigins),
      });
    } else {
      const { error } = meeting;
      const connectError = ConnectError.from(error);
      if (connectError.code === Code.NotFound) {
        return sendPage(res, assets, {
          status: 404,
          title: "Meeting not found · svc",
          entry: ENTRY,
          styleOnly: true,
          bodyClass: "view-state",
          body: notFoundView(),
        });
      }
      logger.error({ err: error, requestId: res.locals.requestId }, "meeting page: meeting service call failed");
      const unavailable = connectError.code === Code.Unavailable;
      sendPage(res, assets, {
        status: unavailable ? 503 : 500,
        title: "Something went wrong · svc",
        entry: ENTRY,
        styleOnly: true,
        bodyClass: "view-state",
        body: errorView(res.locals.requestId as string),
      });
    }
  });
  return router;
}

/** What the route's first handler found: the meeting and its organization's embed origins, or why not. */
type LoadedMeeting = { info: GetJoinInfoResponse; embedOrigins: string[] } | { error: unknown };

/**
 * `scheduled`, `live`, `ended`, or the lower-case name of a status added later (such as
 * `cancelled`): the value of `data-status` and of the status badge's class.
 */
function statusName(status: MeetingStatus): string {
  return (MeetingStatus[status] ?? "UNSPECIFIED").toLowerCase();
}

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

// UTC, spelled out; the room's script rewrites <time> in the viewer's own time zone.
const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "short", timeZone: "UTC" });

const time = (timestamp: Timestamp) => {
  const date = timestampDate(timestamp);
  return html`<time datetime="${date.toISOString()}">${dateFormat.format(date)} UTC</time>`;
};

const brand = html`<p class="brand"><span class="brand-mark" aria-hidden="true"></span>svc meeting</p>`;

/**
 * `data-embed-origins` (space-separated, only when some are allowed) tells the script which
 * origins may frame it: it posts its events (embed-events.ts) only to a parent among them.
 */
function meetingView(info: GetJoinInfoResponse, status: string, joinable: boolean, embedOrigins: string[]): SafeHtml {
  const invited = info.attendeeCount === 0 ? null : info.attendeeCount === 1 ? "1 person invited" : `${info.attendeeCount} people invited`;
  const embedding = joinable && embedOrigins.length > 0 ? html` data-embed-origins="${embedOrigins.join(" ")}"` : null;
  return html`<main id="meeting" class="meeting" data-meeting-id="${info.id}" data-status="${status}" data-title="${info.title}" data-lobby="${info.lobby ? "on" : "off"}"${embedding}>
  <header class="meeting-header">
    ${brand}
    <h1 id="meeting-title">${info.title}</h1>
    <p class="meeting-meta">
      <span class="status status-${status}" id="meeting-status">${capitalised(status)}</span>
      ${info.start ? html`<span>Scheduled for ${time(info.start)}</span>` : null}
      ${invited ? html`<span>${invited}</span>` : null}
      ${info.endedAt ? html`<span>Ended ${time(info.endedAt)}</span>` : null}
    </p>
    ${joinable ? recordingNotice(info) : null}
  </header>
  <div id="view" class="view">
    ${joinable ? loadingView() : terminalView(status)}
  </div>
</main>`;
}

/**
 * Told before anyone joins (docs/meeting-room.md, "Recording"): people decide whether to enter
 * a recorded meeting, and with camera and microphone on, knowing it.
 */
function recordingNotice(info: GetJoinInfoResponse): SafeHtml | null {
  const said = recordingWords(info);
  if (!said) return null;
  const transcribed = info.transcribed ? " Its recordings are transcribed: what each person says is written down with their name." : "";
  return html`<p class="recording-join-notice" id="recording-notice"><span class="recording-dot" aria-hidden="true"></span>${said}${transcribed}</p>`;
}

function recordingWords(info: GetJoinInfoResponse): string | null {
  if (info.recording) return "This meeting is being recorded. Everyone in it sees when it is.";
  if (info.recordingMode === "auto") return "This meeting is recorded: recording starts when the first person joins.";
  if (info.recordingMode === "manual") return "Hosts may record this meeting; everyone in it sees when they do.";
  return null;
}

function loadingView(): SafeHtml {
  return html`<section class="card state" aria-labelledby="view-heading">
      <h2 id="view-heading">Preparing the meeting room…</h2>
      <noscript><p>The meeting room needs JavaScript. Allow it for this site, then reload the page.</p></noscript>
    </section>`;
}

function terminalView(status: string): SafeHtml {
  const [heading, text] =
    status === "cancelled"
      ? ["This meeting was cancelled", "The organizer cancelled this meeting, so it cannot be joined. Ask them for a new link if you still need to meet."]
      : status === "ended"
        ? ["This meeting has ended", "Nobody can join it any more. You can close this page."]
        : ["This meeting cannot be joined", "Its state does not allow joining. Ask the organizer for a new link."];
  return html`<section class="card state state-${status}" aria-labelledby="view-heading">
      <h2 id="view-heading">${heading}</h2>
      <p>${text}</p>
    </section>`;
}

function notFoundView(): SafeHtml {
  return html`<main class="meeting">
  <header class="meeting-header">${brand}<h1>Meeting not found</h1></header>
  <div class="view">
    <section class="card state state-not-found" aria-label="Meeting not found">
      <p>This link does not lead to a meeting. Check that you copied the whole address, or ask the organizer for a new link.</p>
    </section>
  </div>
</main>`;
}

function errorView(requestId: string): SafeHtml {
  return html`<main class="meeting">
  <header class="meeting-header">${brand}<h1>Something went wrong</h1></header>
  <div class="view">
    <section class="card state state-error" aria-label="Error">
      <p>The meeting could not be loaded. Please try again in a moment.</p>
      <p class="reference">Reference: <code>${requestId}</code></p>
    </section>
  </div>
</main>`;
}
