import type { CallOptions } from "@connectrpc/connect";
import type { Response } from "express";
import { errorMetadata } from "@svc/platform/contract";
import { forwardedCredential } from "./bearer.ts";

// A read of a cancelled meeting's records answers 410 Gone with the body a 200 would carry and the
// error beside it: the meeting is gone for a REST client, its final state still readable
// (docs/api.md, "Cancelling"). The meeting service marks such answers with a response header
// (services/meeting/src/handlers/cancelled-reads.ts); these two turn the mark into the answer.

const CANCELLED = "Meeting was cancelled";
const MARKED = "cancelledMeetingRead";

/** Call options for a read of a meeting's records: the caller's credential, the other options given, and the watch for the mark. */
export const meetingReadOptions = (res: Response, options: CallOptions = {}): CallOptions => ({
  headers: forwardedCredential(res.locals),
  ...options,
  onHeader: (headers) => {
    if (headers.get(errorMetadata.gone) === "true") res.locals[MARKED] = true;
  },
});

/** Sends a read's answer: 200 as it is, or 410 with the error when the meeting service marked it. */
export function sendMeetingRead(res: Response, body: object): void {
  if (res.locals[MARKED] === true) res.status(410).json({ ...body, error: CANCELLED });
  else res.json(body);
}
