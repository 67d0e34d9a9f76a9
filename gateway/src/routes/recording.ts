import { Router } from "express";
import type { z } from "zod";
import { isRecordingFailureCode } from "@svc/platform/contract";
import type { Recording as RecordingMessage } from "@svc/proto/svc/meeting/v1/recording_pb";
import { RECORDING_START_TIMEOUT_MS, type Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { meetingReadOptions, sendMeetingRead } from "../http/cancelled-meeting.ts";
import { parseJsonBody, parseQuery } from "../http/parse-request.ts";
import { AccessLinkQuery, StartRecordingRequest, type Recording, type RecordingAccessLink, type RecordingList } from "../contract/recording.ts";
import { recordingStatusWords } from "./enum-words.ts";
import { enumName, isoOrNull, isoTime } from "./proto-to-json.ts";

export function recordingJson(recording: RecordingMessage): z.input<typeof Recording> {
  return {
    id: recording.id,
    meetingId: recording.meetingId,
    status: enumName(recordingStatusWords, recording.status),
    layout: recording.layout === "audio" ? "audio" : "grid",
    startedAt: isoTime(recording.startedAt),
    capturing: recording.capturing,
    endedAt: isoOrNull(recording.endedAt),
    durationSeconds: recording.durationSeconds ?? null,
    sizeBytes: recording.sizeBytes === undefined ? null : Number(recording.sizeBytes),
    error: recording.error || null,
    errorCode: isRecordingFailureCode(recording.errorCode) ? recording.errorCode : null,
    startedBy: recording.startedBy === "host" || recording.startedBy === "auto" ? recording.startedBy : "api",
  };
}

/**
 * The recordings of meetings (docs/meeting-room.md, "Recording"): start and list them per
 * meeting, read, stop and delete one, and get a signed download link. Mounted on the
 * authenticated /api/v1 router; the meeting service checks the scope, the role and the
 * organization of every call.
 */
export function recordingRoutes(clients: Clients): Router {
  const router = Router();
  const recordings = clients.recording;

  router.post("/meeting/:id/recordings", async (req, res) => {
    const { layout } = parseJsonBody(StartRecordingRequest, req.body);
    const { recording } = await recordings.startRecording(
      { meetingId: req.params.id, layout: layout ?? "grid" },
      { headers: forwardedCredential(res.locals), timeoutMs: RECORDING_START_TIMEOUT_MS },
    );
    res.status(201).json(recordingJson(recording!));
  });

  router.get("/meeting/:id/recordings", async (req, res) => {
    const list = await recordings.listRecordings({ meetingId: req.params.id }, meetingReadOptions(res));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof RecordingList> = { recordings: list.recordings.map(recordingJson) };
    sendMeetingRead(res, answer);
  });

  router.get("/recordings/:recordingId", async (req, res) => {
    const { recording } = await recordings.getRecording({ recordingId: req.params.recordingId }, { headers: forwardedCredential(res.locals) });
    res.set("Cache-Control", "no-store");
    res.json(recordingJson(recording!));
  });

  router.post("/recordings/:recordingId/stop", async (req, res) => {
    const { recording } = await recordings.stopRecording({ recordingId: req.params.recordingId }, { headers: forwardedCredential(res.locals) });
    res.json(recordingJson(recording!));
  });

  router.get("/recordings/:recordingId/access-link", async (req, res) => {
    const query = parseQuery(AccessLinkQuery, req.query);
    const link = await recordings.createRecordingAccessLink(
      { recordingId: req.params.recordingId, expiresInSeconds: query.expiresInSeconds ?? 0 },
      { headers: forwardedCredential(res.locals) },
    );
    // The link is a credential to the file: never cached.
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof RecordingAccessLink> = { downloadLink: link.downloadLink, expiresAt: isoTime(link.expiresAt) };
    res.json(answer);
  });

  router.delete("/recordings/:recordingId", async (req, res) => {
    await recordings.deleteRecording({ recordingId: req.params.recordingId }, { headers: forwardedCredential(res.locals) });
    res.json({ recordingId: req.params.recordingId, deleted: true });
  });

  return router;
}
