import { z } from "zod";
import { createDocument, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from "zod-openapi";
import { SCOPE_DESCRIPTIONS } from "@svc/platform/contract";
import { ErrorBody } from "../contract/common.ts";
import { apiIntroduction } from "./introduction.ts";

/**
 * The OpenAPI 3.1 document of the public REST surface, served at GET /api/v1/openapi.json and
 * generated (zod-openapi) from the contract schemas the routes validate with (gateway/src/contract).
 * Each area contributes its operations from its own module.
 */
export interface OpenApiFragment {
  paths: ZodOpenApiPathsObject;
  /** Requests we send to subscribers (OpenAPI 3.1 `webhooks`), by event type. */
  webhooks?: ZodOpenApiPathsObject;
}

/** A response that carries the standard JSON error body. */
export const errorResponse = (description: string): ZodOpenApiResponseObject => ({
  description,
  content: { "application/json": { schema: ErrorBody } },
});

/** A JSON response with the given contract schema. */
export const jsonResponse = (schema: z.ZodType, description: string): ZodOpenApiResponseObject => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body with the given contract schema. */
export const jsonRequestBody = (schema: z.ZodType) => ({ required: true, content: { "application/json": { schema } } });

/** 404 of every operation on one of the caller's organization's meetings (another organization's does not exist for the caller). */
export const meetingNotFoundResponse = errorResponse('No such meeting in the caller\'s organization: `{"error": "Meeting not found"}`.');

/** A read of a cancelled meeting's records: 410 Gone with the body a 200 would carry and the error (docs/api.md, "Cancelling"). */
export const cancelledMeetingResponse = (schema: z.ZodObject, what: string): ZodOpenApiResponseObject =>
  jsonResponse(
    schema.extend(ErrorBody.shape),
    `The meeting was cancelled: the body is ${what}, as a 200 would carry it, with \`"error": "Meeting was cancelled"\`; the meeting is gone, its final state still readable.`,
  );

/** 401, as every authenticated route answers it (RFC 6750 challenge). */
export const unauthorizedResponse: ZodOpenApiResponseObject = {
  ...errorResponse("Missing, malformed, unknown, expired or revoked token."),
  headers: z.object({ "WWW-Authenticate": z.string().meta({ description: '`Bearer realm="svc"`, with `error="invalid_token"` when a token was sent.' }) }),
};

/** 403 for an OAuth token without `scope` (spec 5.5). */
export const forbiddenResponse = (scope: string): ZodOpenApiResponseObject => ({
  ...errorResponse(`An OAuth access token without the scope \`${scope}\`: \`{"error": "Insufficient scope: ${scope}"}\`. API keys need no scope.`),
  // Only the scope refusal carries the challenge; a member calling an admin operation gets a plain 403.
  headers: z.object({
    "WWW-Authenticate": z
      .string()
      .optional()
      .meta({ description: `\`Bearer realm="svc", error="insufficient_scope", scope="${scope}"\`, on the scope refusal only` }),
  }),
});

/** A service's own failure (500) and an internal service it needs being unreachable (503). */
export const serverErrorResponses = {
  "500": errorResponse("Internal server error."),
  "503": errorResponse("A service is temporarily unavailable."),
};

/** 429 from a rate limiter. */
export const tooManyRequestsResponse = (
  what = "Too many requests for this credential, or from this client address for requests without a verified credential.",
): ZodOpenApiResponseObject => ({
  ...errorResponse(what),
  headers: z.object({ "Retry-After": z.string().meta({ description: "Seconds to wait.", override: { type: "integer" } }) }),
});

/** The answers an Idempotency-Key adds to an operation. */
export const idempotencyResponses = {
  "409": errorResponse(
    "A request with the same Idempotency-Key is still being processed (or, for webhooks, the organization's subscription limit is reached).",
  ),
  "422": errorResponse(
    'The Idempotency-Key was already used with a different request: `{"error": "This Idempotency-Key was already used with a different request"}`.',
  ),
};

export function buildOpenApiDocument(publicUrl: string, fragments: OpenApiFragment[]): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: "3.1.0",
    info: { title: "svc API", version: "1.0.0", description: apiIntroduction },
    servers: [{ url: `${publicUrl}/api/v1` }],
    security: [{ ApiKey: [] }, { OAuth2: [] }],
    paths: Object.assign({}, ...fragments.map((fragment) => fragment.paths)),
    webhooks: Object.assign({}, ...fragments.map((fragment) => fragment.webhooks ?? {})),
    components: {
      securitySchemes: {
        ApiKey: { type: "http", scheme: "bearer", description: "An API key (prefix svc_): full access, no scopes." },
        DashboardSession: {
          type: "apiKey",
          in: "cookie",
          name: "svc_session",
          description:
            "A dashboard session (cookie `svc_session`, `__Host-svc_session` on https, set by `POST /session`). Every request made with it must also send the header `X-CSRF-Token` with the value of the `svc_csrf` (`__Host-svc_csrf`) cookie; without it: 403. Only a session may call the credential-management endpoints.",
        },
        OAuth2: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: `${publicUrl}/api/v1/oauth/authorize`,
              tokenUrl: `${publicUrl}/api/v1/oauth/token`,
              refreshUrl: `${publicUrl}/api/v1/oauth/token`,
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
      },
    },
  });
}
