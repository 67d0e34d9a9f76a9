import { Router } from "express";
import type { z } from "zod";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { parseOffsetDateTime } from "@svc/platform/contract";
import { ParticipantRole } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { meetingReadOptions, sendMeetingRead } from "../http/cancelled-meeting.ts";
import { HttpError } from "../http/errors.ts";
import { parseJsonBody } from "../http/parse-request.ts";
import { CreateJoinLinkRequest, isJoinLinkState, type JoinLink, type JoinLinkList } from "../contract/meeting.ts";
import { isoTime } from "./proto-to-json.ts";
import { participantRoleWords, roleName } from "./enum-words.ts";

/** A meeting's personal join links (docs/meeting-room.md): create, list and revoke them. Mounted by meetingRoutes. */
export function joinLinkRoutes(clients: Clients): Router {
  const router = Router();

  router.post("/meeting/:id/links", async (req, res) => {
    const body = parseJsonBody(CreateJoinLinkRequest, req.body);
    let expiresAt;
    if (body.expiresAt !== undefined) {
      const parsed = parseOffsetDateTime(body.expiresAt);
      if (!parsed.ok) throw new HttpError(400, `expiresAt ${parsed.problem}`);
      expiresAt = timestampFromDate(parsed.date);
    }
    const { link } = await clients.meeting.createJoinLink(
      {
        meetingId: req.params.id,
        email: body.email ?? "",
        name: body.name ?? "",
        role: body.role ? participantRoleWords.valueOf(body.role) : ParticipantRole.UNSPECIFIED,
        expiresAt,
      },
      { headers: forwardedCredential(res.locals) },
    );
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof JoinLink> = {
      linkId: link!.linkId,
      url: link!.url,
      role: roleName(link!.role),
      email: link!.email || null,
      name: link!.name || null,
      expiresAt: isoTime(link!.expiresAt),
    };
    res.status(201).json(answer);
  });

  router.get("/meeting/:id/links", async (req, res) => {
    const { links } = await clients.meeting.listJoinLinks({ meetingId: req.params.id }, meetingReadOptions(res));
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof JoinLinkList> = {
      links: links.map((link) => {
        // The meeting service names only these; anything else is a bug between the two, not an answer.
        if (!isJoinLinkState(link.state)) throw new Error(`unknown join link state ${link.state}`);
        return {
          linkId: link.linkId,
          role: participantRoleWords.wordOf(link.role) ?? null,
          email: link.email || null,
          name: link.name || null,
          expiresAt: isoTime(link.expiresAt),
          revokedAt: link.revokedAt ? isoTime(link.revokedAt) : null,
          createdAt: isoTime(link.createdAt),
          state: link.state,
        };
      }),
    };
    sendMeetingRead(res, answer);
  });

  router.delete("/meeting/:id/links/:linkId", async (req, res) => {
    const { revokedNow } = await clients.meeting.revokeJoinLink(
      { meetingId: req.params.id, linkId: req.params.linkId },
      { headers: forwardedCredential(res.locals) },
    );
    res.json({ linkId: req.params.linkId, revoked: true, revokedNow });
  });

  return router;
}
