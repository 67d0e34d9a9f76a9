import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { Router, type Request, type Response } from "express";
import type { Logger } from "@svc/platform";
import { errorMetadata } from "@svc/platform/contract";
import type { RecordingFileHead } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { Clients } from "../clients.ts";
import { fromConnectError, HttpError, sendError } from "../http/errors.ts";

/** Whole files stream for as long as they take; a stalled download is cut after this much silence. */
const IDLE_TIMEOUT_MS = 60_000;

/**
 * GET (and HEAD) /api/v1/recording-downloads/:token: the file of a recording, for whoever holds
 * an access link (GET /recordings/{id}/access-link). No credential: the signed, expiring token is
 * the permission, and the meeting service judges it. The file streams from the meeting service
 * (RecordingFileService, which reads the storage) with HTTP Range support, so a browser's video
 * element can seek (docs/decisions/0016-recording-downloads-through-the-meeting-service.md).
 */
export function recordingDownloadRoutes(clients: Clients, logger: Logger): Router {
  const router = Router();

  const serve = async (req: Request<{ token: string }>, res: Response) => {
    const abort = new AbortController();
    res.once("close", () => abort.abort());
    // No deadline (0): a download lasts as long as the file and the caller's connection take; it ends when the caller goes.
    const stream = clients.recordingFile
      .readRecordingFile({ token: req.params.token, range: req.get("range") ?? "" }, { signal: abort.signal, timeoutMs: 0 })
      [Symbol.asyncIterator]();
    let head: RecordingFileHead;
    try {
      const first = await stream.next();
      if (first.done || first.value.part.case !== "head") throw new Error("the meeting service answered no file head");
      head = first.value.part.value;
    } catch (error) {
      const refusal = ConnectError.from(error);
      if (refusal.code === Code.OutOfRange) {
        const size = refusal.metadata.get(errorMetadata.fileSize) ?? "0";
        return sendError(res, new HttpError(416, refusal.rawMessage, { "Content-Range": `bytes */${size}` }));
      }
      const httpError = fromConnectError(refusal);
      if (httpError.status >= 500) logger.error({ err: error, requestId: res.locals.requestId }, "recording download failed downstream");
      return sendError(res, httpError);
    }
    res.status(head.partial ? 206 : 200).set({
      "Content-Type": head.contentType,
      "Content-Length": String(head.lastByte - head.firstByte + 1n),
      "Accept-Ranges": "bytes",
      // The link is the credential: never cached by a shared cache, never indexed.
      "Cache-Control": "private, no-store",
      "X-Robots-Tag": "noindex",
      "Content-Disposition": `inline; filename="${head.filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      ...(head.partial ? { "Content-Range": `bytes ${head.firstByte}-${head.lastByte}/${head.sizeBytes}` } : {}),
    });
    if (req.method === "HEAD") {
      abort.abort();
      return res.end();
    }
    res.setTimeout(IDLE_TIMEOUT_MS, () => res.destroy());
    const chunks = Readable.from(
      (async function* () {
        for (;;) {
          const next = await stream.next();
          if (next.done) return;
          if (next.value.part.case === "chunk") yield next.value.part.value;
        }
      })(),
    );
    await pipeline(chunks, res).catch((error: unknown) => {
      // The viewer went away (a seek closes the previous request), or the stream broke: the
      // response is already under way, so it is cut, not answered with an error body.
      if (!abort.signal.aborted) logger.warn({ err: error, requestId: res.locals.requestId }, "recording download cut short");
      res.destroy();
    });
  };

  router.get("/api/v1/recording-downloads/:token", serve);
  router.head("/api/v1/recording-downloads/:token", serve);
  return router;
}
