import type { HandlerContext } from "@connectrpc/connect";
import { errorMetadata } from "@svc/platform/contract";
import type { StoredMeeting } from "../meeting-store.ts";

/**
 * Marks an answer that reads a cancelled meeting's records (the meeting, its visits, attendance,
 * links, recordings, transcripts): the gateway serves it as 410 Gone with the same body, so the
 * meeting is gone for a REST client while its final state stays readable (docs/api.md, "Cancelling").
 */
export function markIfCancelled(meeting: Pick<StoredMeeting, "status">, context: HandlerContext): void {
  if (meeting.status === "cancelled") context.responseHeader.set(errorMetadata.gone, "true");
}
