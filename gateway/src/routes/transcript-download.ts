import { Router, type Response } from "express";
import type { Clients } from "../clients.ts";
import { transcriptWithSegmentsJson } from "./transcript.ts";
import { toWebVtt } from "./transcript-webvtt.ts";

const CALL_TIMEOUT_MS = 10_000;

/** The link is the credential: never cached by a shared cache, never indexed. */
const linkHeaders = (res: Response, filename: string) =>
  res.set({ "Cache-Control": "private, no-store", "X-Robots-Tag": "noindex", "Content-Disposition": `inline; filename="${filename}"` });

/**
 * GET /api/v1/transcript-downloads/:token/transcript.vtt and .json: a ready transcript for
 * whoever holds an access link (GET /transcripts/{id}/access-link). No credential: the signed,
 * expiring token is the permission, and the meeting service judges it (TranscriptFileService).
 */
export function transcriptDownloadRoutes(clients: Clients): Router {
  const router = Router();

  const read = (token: string) => clients.transcriptFile.readTranscriptFile({ token }, { timeoutMs: CALL_TIMEOUT_MS });
  const filename = (id: string, extension: string) => `transcript-${id.replace(/[^A-Za-z0-9-]/g, "").slice(0, 8)}.${extension}`;

  router.get("/api/v1/transcript-downloads/:token/transcript.vtt", async (req, res) => {
    const { transcript, segments } = await read(req.params.token);
    const document = transcriptWithSegmentsJson(transcript!, segments);
    linkHeaders(res, filename(document.id, "vtt"));
    res.type("text/vtt; charset=utf-8").send(toWebVtt(document.segments));
  });

  router.get("/api/v1/transcript-downloads/:token/transcript.json", async (req, res) => {
    const { transcript, segments } = await read(req.params.token);
    const document = transcriptWithSegmentsJson(transcript!, segments);
    linkHeaders(res, filename(document.id, "json"));
    res.json(document);
  });

  return router;
}
