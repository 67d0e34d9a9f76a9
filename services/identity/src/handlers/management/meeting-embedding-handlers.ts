import type { ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound } from "@svc/platform";
import type { ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import { checkEmbedOrigins } from "../../embedding/embed-origins.ts";
import type { ManagementAccess, ManagementDependencies } from "./management-context.ts";

type MeetingEmbeddingHandlers = Pick<ServiceImpl<typeof ManagementService>, "getMeetingEmbedding" | "setMeetingEmbedding">;

/** The sites that may frame the organization's meetings (admins). */
export function meetingEmbeddingHandlers({ embedOrigins, logger }: ManagementDependencies, { adminSession }: ManagementAccess): MeetingEmbeddingHandlers {
  return {
    async getMeetingEmbedding(_request, context) {
      const caller = await adminSession(context);
      const allowedOrigins = await embedOrigins.originsOf(caller.orgId);
      if (!allowedOrigins) throw notFound("Organization");
      return { embedding: { allowedOrigins } };
    },

    async setMeetingEmbedding(request, context) {
      const caller = await adminSession(context);
      const checked = checkEmbedOrigins(request.allowedOrigins);
      if ("problems" in checked) throw invalidArgument(checked.problems);
      if (!(await embedOrigins.replace(caller.orgId, checked.origins))) throw notFound("Organization");
      // Origins are public (they are sent in the join page's header), so they may be logged.
      logger.info({ orgId: caller.orgId, userId: caller.userId, origins: checked.origins }, "meeting embed origins set");
      return { embedding: { allowedOrigins: checked.origins } };
    },
  };
}
