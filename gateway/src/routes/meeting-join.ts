import { randomBytes } from "node:crypto";
import { Router, type Request, type Response } from "express";
import type { z } from "zod";
import type { JoinMeetingResponse } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { meetingReadOptions, sendMeetingRead } from "../http/cancelled-meeting.ts";
import {
  JoinLinkHolderRequest,
  JoinMeetingRequest,
  LobbyStatusRequest,
  type JoinGrant,
  type JoinLinkHolder,
  type LobbyStatus,
  type LobbyWait,
  type VisitorStanding,
} from "../contract/meeting.ts";
import { HttpError } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import { parseJsonBody } from "../http/parse-request.ts";
import { meetingStatusWords, roleName } from "./enum-words.ts";
import { enumName, isoTime } from "./proto-to-json.ts";

const VISITOR_COOKIE = "svc_room_visitor";

/**
 * The browser session's key for the meeting rooms: an HttpOnly, SameSite=Strict session cookie
 * (gone when the browser closes) that the gateway only carries. The meeting service keeps its
 * hash with each admission, so someone removed from a meeting cannot come back from the same
 * browser session.
 */
function visitorKey(req: Request, res: Response, secure: boolean): string {
  const existing = presentedVisitorKey(req);
  if (existing) return existing;
  const fresh = randomBytes(32).toString("base64url");
  res.cookie(VISITOR_COOKIE, fresh, { httpOnly: true, sameSite: "strict", secure, path: "/api/v1/meeting" });
  return fresh;
}

/** The browser session's key when its cookie carries one (never set here). */
function presentedVisitorKey(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === VISITOR_COOKIE) {
      const value = part.slice(separator + 1).trim();
      if (/^[A-Za-z0-9_-]{43}$/.test(value)) return value;
    }
  }
  return undefined;
}

/** A join grant as JSON (the join itself, and the lobby's admission). */
export function joinGrantJson(grant: JoinMeetingResponse): z.input<typeof JoinGrant> {
  const status = enumName(meetingStatusWords, grant.status);
  if (status === "cancelled") throw new Error("a join grant was issued for a cancelled meeting");
  return {
    participantId: grant.participantId,
    token: grant.token,
    serverUrl: grant.serverUrl,
    expiresAt: isoTime(grant.expiresAt),
    meeting: { id: grant.meetingId, title: grant.title, status },
    role: roleName(grant.role),
    roomSession: grant.roomSession,
  };
}

/**
 * POST /api/v1/meeting/:id/join: a join grant for the meeting room (or, with the meeting's lobby
 * on, a place in the lobby: 202), and POST /api/v1/meeting/:id/lobby/status for whoever waits.
 * Public like the join page (the unguessable id in the URL is the capability, a personal link's
 * secret says who the person is), so they take no Authorization header; the meeting service
 * decides. The client address is the one Express derives with the configured `trust proxy`.
 */
export function meetingJoinRoutes(clients: Clients, publicUrl: string): Router {
  const router = Router();
  const secure = new URL(publicUrl).protocol === "https:";

  router.post("/meeting/:id/join", ...jsonBody, async (req, res) => {
    // The JSON shape only; the rule for names (length, characters) lives in the meeting service.
    const { displayName, link } = parseJsonBody(JoinMeetingRequest, req.body);
    const grant = await clients.meetingPage.joinMeeting({
      meetingId: String(req.params.id),
      displayName,
      clientAddress: req.ip ?? "",
      link: link ?? "",
      visitorKey: visitorKey(req, res, secure),
    });
    res.set("Cache-Control", "no-store");
    if (grant.lobbyTicket) {
      const status = enumName(meetingStatusWords, grant.status);
      const role = roleName(grant.role);
      if ((status !== "scheduled" && status !== "live") || role === "host") throw new Error("a lobby place was given for a closed meeting or to a host");
      const wait: z.input<typeof LobbyWait> = {
        status: "waiting",
        lobbyTicket: grant.lobbyTicket,
        role,
        meeting: { id: grant.meetingId, title: grant.title, status },
      };
      res.status(202).json(wait);
      return;
    }
    res.json(joinGrantJson(grant));
  });

  // Who a personal link is for, so the join page can prefill the name and say the role before
  // anyone joins. A POST: the secret stays out of URLs and access logs. A link that does not let
  // its holder in is 403 with the reason, the same words the join would answer.
  router.post("/meeting/:id/link-holder", ...jsonBody, async (req, res) => {
    const { link } = parseJsonBody(JoinLinkHolderRequest, req.body);
    const info = await clients.meetingPage.getJoinInfo({ id: String(req.params.id), link, visitorKey: presentedVisitorKey(req) ?? "" });
    res.set("Cache-Control", "no-store");
    if (info.linkProblem) throw new HttpError(403, info.linkProblemMessage || "This join link is not valid");
    if (info.removed) throw new HttpError(403, "You were removed from this meeting");
    const holder: z.input<typeof JoinLinkHolder> = { role: roleName(info.linkRole), name: info.linkName || null };
    res.json(holder);
  });

  // Whether someone was removed from the meeting from this browser session: the join page asks
  // first, so a removed person who reloads sees that rather than the join form. It is also where a
  // new browser session gets its key: the page asks for grants only after this answer, so two
  // grants asked for at once (one prepared while the name is typed, one at Join) carry the same
  // key, and a removal bars the session that reloads.
  router.get("/meeting/:id/visitor", async (req, res) => {
    const key = visitorKey(req, res, secure);
    const info = await clients.meetingPage.getJoinInfo({ id: String(req.params.id), visitorKey: key }, meetingReadOptions(res, { headers: {} }));
    res.set("Cache-Control", "no-store");
    const standing: z.input<typeof VisitorStanding> = { removed: info.removed };
    sendMeetingRead(res, standing);
  });

  router.post("/meeting/:id/lobby/status", ...jsonBody, async (req, res) => {
    const { ticket } = parseJsonBody(LobbyStatusRequest, req.body);
    const answer = await clients.meetingRoom.getLobbyStatus({ meetingId: String(req.params.id), ticket, clientAddress: req.ip ?? "" });
    res.set("Cache-Control", "no-store");
    const status: z.input<typeof LobbyStatus> = {
      status: answer.status as "waiting" | "locked" | "admitted" | "denied",
      grant: answer.grant ? joinGrantJson(answer.grant) : null,
    };
    res.json(status);
  });

  return router;
}
