import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { Router, type Response } from "express";
import type { Logger } from "@svc/platform";
import { MeetingStatus, type GetJoinInfoResponse } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { html, SafeHtml } from "./html.ts";

/**
 * The join page at {PUBLIC_URL}/meeting/:id. Anyone with the link may open it (the unguessable id
 * is the capability), so it shows only what a participant needs: title, start, status and how
 * many people were invited. It has no video yet: the `stage` section is where the call will be
 * mounted, and `data-meeting-id` / `data-status` are what a future client script will read.
 */
export function meetingPageRoutes(clients: Clients, logger: Logger): Router {
  const router = Router();
  router.get("/meeting/:id", async (req, res) => {
    // The page changes when the meeting ends; the link is a capability, so keep it out of caches and indexes.
    res.set({ "Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow" });
    try {
      const info = await clients.meetingPage.getJoinInfo({ id: req.params.id }, { timeoutMs: 5_000 });
      sendPage(res, 200, `${info.title} · svc`, meetingView(info));
    } catch (error) {
      const connectError = ConnectError.from(error);
      if (connectError.code === Code.NotFound) return sendPage(res, 404, "Meeting not found · svc", notFoundView());
      logger.error({ err: error, requestId: res.locals.requestId }, "join page: meeting service call failed");
      const unavailable = connectError.code === Code.Unavailable;
      sendPage(res, unavailable ? 503 : 500, "Something went wrong · svc", errorView(res.locals.requestId as string));
    }
  });
  return router;
}

const statusLabels: Record<MeetingStatus, string> = {
  [MeetingStatus.UNSPECIFIED]: "Unknown",
  [MeetingStatus.SCHEDULED]: "Scheduled",
  [MeetingStatus.LIVE]: "Live",
  [MeetingStatus.ENDED]: "Ended",
};

// UTC, spelled out: the page has no script yet to show the viewer's own time zone.
const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "short", timeZone: "UTC" });

const time = (timestamp: Timestamp) => {
  const date = timestampDate(timestamp);
  return html`<time datetime="${date.toISOString()}">${dateFormat.format(date)} UTC</time>`;
};

function meetingView(info: GetJoinInfoResponse): SafeHtml {
  const status = statusLabels[info.status].toLowerCase();
  const ended = info.status === MeetingStatus.ENDED;
  const invited = info.attendeeCount === 1 ? "1 person" : `${info.attendeeCount} people`;
  return html`<main class="meeting" data-meeting-id="${info.id}" data-status="${status}">
  <header>
    <p class="brand">svc meeting</p>
    <h1>${info.title}</h1>
    <p class="status status-${status}">${statusLabels[info.status]}</p>
  </header>
  <dl class="details">
    <dt>Start</dt>
    <dd>${info.start ? time(info.start) : "No start time set"}</dd>
    <dt>Invited</dt>
    <dd>${invited}</dd>
    ${ended && info.endedAt ? html`<dt>Ended</dt><dd>${time(info.endedAt)}</dd>` : null}
  </dl>
  <section class="stage" id="stage" aria-label="Meeting room">
    ${
      ended
        ? html`<p class="ended"><strong>This meeting has ended.</strong> You can close this page.</p>`
        : html`<p>${info.status === MeetingStatus.SCHEDULED ? "This meeting has not started yet." : "This meeting is live."} Video calls are not available in this version of svc yet: this page shows the meeting's details only.</p>`
    }
  </section>
</main>`;
}

function notFoundView(): SafeHtml {
  return html`<main class="meeting">
  <header><p class="brand">svc meeting</p><h1>Meeting not found</h1></header>
  <section class="stage"><p>This link does not lead to a meeting. Check that you copied the whole address, or ask the organizer for a new link.</p></section>
</main>`;
}

function errorView(requestId: string): SafeHtml {
  return html`<main class="meeting">
  <header><p class="brand">svc meeting</p><h1>Something went wrong</h1></header>
  <section class="stage"><p>The meeting could not be loaded. Please try again in a moment.</p><p class="reference">Reference: <code>${requestId}</code></p></section>
</main>`;
}

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
  .meeting { width: min(40rem, 100% - 2rem); padding: 2rem 0; }
  .brand { margin: 0; font-size: .875rem; letter-spacing: .08em; text-transform: uppercase; opacity: .7; }
  h1 { margin: .25rem 0 .5rem; font-size: 1.75rem; overflow-wrap: anywhere; }
  .status { display: inline-block; margin: 0; padding: .1rem .6rem; border-radius: 999px; font-weight: 600; font-size: .875rem; border: 1px solid currentColor; }
  .status-live { color: #15803d; } .status-scheduled { color: #1d4ed8; } .status-ended { color: #6b7280; }
  .details { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 1.5rem 0; }
  .details dt { font-weight: 600; } .details dd { margin: 0; }
  .stage { min-height: 8rem; padding: 1rem 1.25rem; border-radius: .75rem; border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); }
  .ended { font-size: 1.125rem; }
  .reference { font-size: .875rem; opacity: .7; }
`;

function sendPage(res: Response, status: number, title: string, body: SafeHtml) {
  res
    .status(status)
    .type("html")
    .send(
      html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
${body}
</body>
</html>
`.value,
    );
}
