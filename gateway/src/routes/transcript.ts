import { Router } from "express";
import type { z } from "zod";
import { isTranscriptionFailureCode } from "@svc/platform/contract";
import type { Transcript as TranscriptMessage, TranscriptSegment as SegmentMessage } from "@svc/proto/svc/meeting/v1/transcript_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { meetingReadOptions, sendMeetingRead } from "../http/cancelled-meeting.ts";
import { parseJsonBody, parseQuery } from "../http/parse-request.ts";
import { AccessLinkQuery } from "../contract/recording.ts";
import {
  UpdateTranscriptionSettingsRequest,
  type Transcript,
  type TranscriptAccessLink,
  type TranscriptionSettings,
  type TranscriptList,
  type TranscriptWithSegments,
} from "../contract/transcript.ts";
import { transcriptStatusWords } from "./enum-words.ts";
import { enumName, isoOrNull, isoTime } from "./proto-to-json.ts";

const CALL_TIMEOUT_MS = 10_000;

export function transcriptJson(transcript: TranscriptMessage): z.input<typeof Transcript> {
  return {
    id: transcript.id,
    meetingId: transcript.meetingId,
    recordingId: transcript.recordingId || null,
    status: enumName(transcriptStatusWords, transcript.status),
    language: transcript.language,
    createdAt: isoTime(transcript.createdAt),
    completedAt: isoOrNull(transcript.completedAt),
    durationSeconds: transcript.durationSeconds ?? null,
    speakers: transcript.speakers.map((speaker) => ({ name: speaker.displayName, email: speaker.email || null })),
    error: transcript.error || null,
    errorCode: isTranscriptionFailureCode(transcript.errorCode) ? transcript.errorCode : null,
  };
}

/** A transcript with its segments, each naming its speaker: GET /transcripts/{id} and the JSON access link answer the same document. */
export function transcriptWithSegmentsJson(transcript: TranscriptMessage, segments: SegmentMessage[]): z.input<typeof TranscriptWithSegments> {
  return {
    ...transcriptJson(transcript),
    segments: segments.map((segment) => ({
      speaker: transcript.speakers[segment.speakerIndex]?.displayName ?? "",
      speakerIndex: segment.speakerIndex,
      start: segment.startSeconds,
      end: segment.endSeconds,
      text: segment.text,
    })),
  };
}

/**
 * The transcripts of meetings (docs/transcription.md): list them per meeting, read and delete one,
 * get signed links to it as WebVTT and JSON, and the organization's transcription default. Mounted
 * on the authenticated /api/v1 router; the meeting service checks the scope, the role and the
 * organization of every call.
 */
export function transcriptRoutes(clients: Clients): Router {
  const router = Router();
  const transcripts = clients.transcript;

  router.get("/meeting/:id/transcripts", async (req, res) => {
    const list = await transcripts.listTranscripts({ meetingId: req.params.id }, meetingReadOptions(res, { timeoutMs: CALL_TIMEOUT_MS }));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof TranscriptList> = { transcripts: list.transcripts.map(transcriptJson) };
    sendMeetingRead(res, answer);
  });

  router.get("/transcripts/:transcriptId", async (req, res) => {
    const { transcript, segments } = await transcripts.getTranscript(
      { transcriptId: req.params.transcriptId },
      { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS },
    );
    res.set("Cache-Control", "no-store");
    res.json(transcriptWithSegmentsJson(transcript!, segments));
  });

  router.get("/transcripts/:transcriptId/access-link", async (req, res) => {
    const query = parseQuery(AccessLinkQuery, req.query);
    const link = await transcripts.createTranscriptAccessLink(
      { transcriptId: req.params.transcriptId, expiresInSeconds: query.expiresInSeconds ?? 0 },
      { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS },
    );
    // The links are credentials to the text: never cached.
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof TranscriptAccessLink> = { webvttLink: link.webvttLink, jsonLink: link.jsonLink, expiresAt: isoTime(link.expiresAt) };
    res.json(answer);
  });

  router.delete("/transcripts/:transcriptId", async (req, res) => {
    await transcripts.deleteTranscript({ transcriptId: req.params.transcriptId }, { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS });
    res.json({ transcriptId: req.params.transcriptId, deleted: true });
  });

  router.get("/transcription-settings", async (_req, res) => {
    const settings = await transcripts.getTranscriptionSettings({}, { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS });
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof TranscriptionSettings> = { defaultTranscription: settings.defaultTranscription === "on" ? "on" : "off" };
    res.json(answer);
  });

  router.put("/transcription-settings", async (req, res) => {
    const body = parseJsonBody(UpdateTranscriptionSettingsRequest, req.body);
    const settings = await transcripts.updateTranscriptionSettings(
      { defaultTranscription: body.defaultTranscription },
      { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS },
    );
    const answer: z.input<typeof TranscriptionSettings> = { defaultTranscription: settings.defaultTranscription === "on" ? "on" : "off" };
    res.json(answer);
  });

  return router;
}
