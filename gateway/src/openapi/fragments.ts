import { authOpenApi } from "./auth.ts";
import { dashboardOpenApi } from "./dashboard.ts";
import type { OpenApiFragment } from "./document.ts";
import { eventsOpenApi } from "./events.ts";
import { meetingOpenApi } from "./meeting.ts";
import { oauthOpenApi } from "./oauth.ts";
import { recordingOpenApi } from "./recording.ts";
import { transcriptOpenApi } from "./transcript.ts";
import { webhookOpenApi } from "./webhook.ts";

/** Each area's OpenAPI paths; every route the gateway registers has its entry here (the generated @svc/client reads them too). */
export const openApiFragments: OpenApiFragment[] = [
  meetingOpenApi,
  recordingOpenApi,
  transcriptOpenApi,
  authOpenApi,
  oauthOpenApi,
  webhookOpenApi,
  eventsOpenApi,
  dashboardOpenApi,
];
