import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Router } from "express";
import { z } from "zod";
import type { Clients } from "../clients.ts";
import { HttpError } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import { statusNames } from "./meeting.ts";

const CALL_TIMEOUT_MS = 10_000;

// The JSON shape only; the rule for names (length, characters) lives in the meeting service.
const joinBody = z.object({ displayName: z.string({ error: "displayName must be a string" }) }, { error: "Request body must be a JSON object" });

/**
 * POST /api/v1/meeting/:id/join: a join grant for the meeting room. Public like the join page
 * (the unguessable id in the URL is the capability), so it takes no Authorization header; the
 * meeting service decides (exists, not ended, not full, not asked too often from this address).
 * The client address is the one Express derives with the configured `trust proxy`.
 */
export function meetingJoinRoutes(clients: Clients): Router {
  const router = Router();
  router.post("/meeting/:id/join", ...jsonBody, async (req, res) => {
    const parsed = joinBody.safeParse(req.body ?? {});
    if (!parsed.success) throw new HttpError(400, parsed.error.issues[0]!.message);
    const grant = await clients.meetingPage.joinMeeting(
      { meetingId: String(req.params.id), displayName: parsed.data.displayName, clientAddress: req.ip ?? "" },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
    res.set("Cache-Control", "no-store");
    res.json({
      participantId: grant.participantId,
      token: grant.token,
      serverUrl: grant.serverUrl,
      expiresAt: grant.expiresAt ? timestampDate(grant.expiresAt).toISOString() : null,
      meeting: { id: grant.meetingId, title: grant.title, status: statusNames[grant.status] },
    });
  });
  return router;
}
