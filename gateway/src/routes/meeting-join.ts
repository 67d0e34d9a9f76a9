import { Router } from "express";
import type { z } from "zod";
import type { Clients } from "../clients.ts";
import { JoinMeetingRequest, type JoinGrant } from "../contract/meeting.ts";
import { jsonBody } from "../http/json-body.ts";
import { parseJsonBody } from "../http/parse-request.ts";
import { statusNames } from "./meeting.ts";
import { enumName, isoTime } from "./proto-to-json.ts";

const CALL_TIMEOUT_MS = 10_000;

/**
 * POST /api/v1/meeting/:id/join: a join grant for the meeting room. Public like the join page
 * (the unguessable id in the URL is the capability), so it takes no Authorization header; the
 * meeting service decides (exists, not ended, not full, not asked too often from this address).
 * The client address is the one Express derives with the configured `trust proxy`.
 */
export function meetingJoinRoutes(clients: Clients): Router {
  const router = Router();
  router.post("/meeting/:id/join", ...jsonBody, async (req, res) => {
    // The JSON shape only; the rule for names (length, characters) lives in the meeting service.
    const { displayName } = parseJsonBody(JoinMeetingRequest, req.body);
    const grant = await clients.meetingPage.joinMeeting(
      { meetingId: String(req.params.id), displayName, clientAddress: req.ip ?? "" },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
    res.set("Cache-Control", "no-store");
    const status = enumName(statusNames, grant.status);
    if (status === "cancelled") throw new Error("a join grant was issued for a cancelled meeting");
    const answer: z.input<typeof JoinGrant> = {
      participantId: grant.participantId,
      token: grant.token,
      serverUrl: grant.serverUrl,
      expiresAt: isoTime(grant.expiresAt),
      meeting: { id: grant.meetingId, title: grant.title, status },
    };
    res.json(answer);
  });
  return router;
}
