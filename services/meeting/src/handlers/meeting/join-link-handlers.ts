import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { notFound } from "@svc/platform";
import { ParticipantRole, type MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { markIfCancelled } from "../cancelled-reads.ts";
import { participantRoleWords } from "../enum-words.ts";
import { joinUrl, meetingOfOrg, scopes, type MeetingServiceDependencies } from "./meeting-context.ts";

type JoinLinkHandlers = Pick<ServiceImpl<typeof MeetingService>, "createJoinLink" | "revokeJoinLink" | "listJoinLinks">;

const isLinkId = (value: string) => /^[0-9a-f-]{36}$/i.test(value);

/** Personal join links: made for an invited person or a named guest, listed with their standing, revoked. */
export function joinLinkHandlers(deps: MeetingServiceDependencies): JoinLinkHandlers {
  const { authenticate, links } = deps;
  const ofOrg = meetingOfOrg(deps.meetings);
  return {
    async createJoinLink(request, context) {
      const caller = await authenticate(context, scopes.links);
      const meeting = await ofOrg(caller.orgId, request.meetingId);
      if (meeting.status === "ended" || meeting.status === "cancelled")
        throw new ConnectError(`Meeting has ${meeting.status === "ended" ? "ended" : "been cancelled"}: no new links`, Code.FailedPrecondition);
      const { link, secret } = await links.create(meeting, {
        email: request.email,
        name: request.name,
        role: participantRoleWords.wordOf(request.role),
        expiresAt: request.expiresAt ? timestampDate(request.expiresAt) : undefined,
      });
      return {
        link: {
          linkId: link.id,
          meetingId: meeting.id,
          // In the fragment: browsers never send it to a server, so it stays out of access logs and referrers.
          url: `${joinUrl(deps.publicUrl, meeting.id)}#link=${secret}`,
          role: participantRoleWords.valueOf(link.role),
          email: link.email ?? "",
          name: link.name ?? "",
          expiresAt: timestampFromDate(link.expiresAt),
        },
      };
    },

    async revokeJoinLink(request, context) {
      const caller = await authenticate(context, scopes.links);
      const meeting = await ofOrg(caller.orgId, request.meetingId);
      const outcome = isLinkId(request.linkId) ? await links.revoke(meeting.id, request.linkId) : undefined;
      if (!outcome) throw notFound("Link");
      if (outcome === "revoked" && meeting.roomOpenedAt) deps.rightsChanged(meeting.id);
      return { revokedNow: outcome === "revoked" };
    },

    async listJoinLinks(request, context) {
      const caller = await authenticate(context, scopes.links);
      const meeting = await ofOrg(caller.orgId, request.meetingId);
      markIfCancelled(meeting, context);
      return {
        links: (await links.list(meeting)).map(({ link, standing }) => ({
          linkId: link.id,
          role: "role" in standing ? participantRoleWords.valueOf(standing.role) : ParticipantRole.UNSPECIFIED,
          email: link.email ?? "",
          name: link.name ?? "",
          expiresAt: timestampFromDate(link.expiresAt),
          revokedAt: link.revokedAt ? timestampFromDate(link.revokedAt) : undefined,
          createdAt: timestampFromDate(link.createdAt),
          state: "role" in standing ? "active" : standing.problem.code,
        })),
      };
    },
  };
}
