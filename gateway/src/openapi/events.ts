import { eventCatalog, SignatureHeaders } from "../contract/events.ts";
import { jsonRequestBody, type OpenApiFragment } from "./document.ts";

/** The requests subscribers receive (OpenAPI 3.1 `webhooks`), one per event type of the catalog. */
export const eventsOpenApi: OpenApiFragment = {
  paths: {},
  webhooks: Object.fromEntries(
    Object.entries(eventCatalog).map(([type, { summary, schema }]) => [
      type,
      {
        post: {
          summary,
          description:
            "Delivered at least once to every enabled subscription of the organization that lists this type; any 2xx within 15 s acknowledges it, anything else is retried on the retry schedule. Events of one meeting may arrive in any order: use `timestamp`.",
          tags: ["Webhook events"],
          requestParams: { header: SignatureHeaders },
          requestBody: jsonRequestBody(schema),
          responses: { "2XX": { description: "Received." } },
        },
      },
    ]),
  ),
};
