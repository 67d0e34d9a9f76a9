import { apiIntroduction } from "./introduction.ts";

/**
 * The OpenAPI 3.1 document of the public REST surface, served at GET /api/v1/openapi.json.
 * Each area contributes its paths and schemas from its own module; test/gateway/openapi.test.ts
 * keeps the document true to the routes the gateway actually serves.
 */
export interface OpenApiFragment {
  paths: Record<string, unknown>;
  schemas?: Record<string, unknown>;
  /** Requests we send to subscribers (OpenAPI 3.1 `webhooks`), by event type. */
  webhooks?: Record<string, unknown>;
}

export const errorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: { type: "string", description: "Human-readable message." },
    requestId: { type: "string", description: "Also in the X-Request-Id response header." },
  },
} as const;

/** A response that carries the standard JSON error body. */
export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** A JSON response whose body is the named component schema. */
export const jsonResponse = (ref: string, description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});

/** 401, as every authenticated route answers it (RFC 6750 challenge). */
export const unauthorizedResponse = {
  ...errorResponse("Missing, malformed, unknown, expired or revoked token."),
  headers: { "WWW-Authenticate": { description: '`Bearer realm="svc"`, with `error="invalid_token"` when a token was sent.', schema: { type: "string" } } },
};

/** 403 for an OAuth token without `scope` (spec 5.5). */
export const forbiddenResponse = (scope: string) => ({
  ...errorResponse(`An OAuth access token without the scope \`${scope}\`: \`{"error": "Insufficient scope: ${scope}"}\`. API keys need no scope.`),
  headers: {
    "WWW-Authenticate": { description: `\`Bearer realm="svc", error="insufficient_scope", scope="${scope}"\``, schema: { type: "string" } },
  },
});

/** 429 from the gateway's rate limiter. */
export const tooManyRequestsResponse = (what = "Too many requests for this credential.") => ({
  ...errorResponse(what),
  headers: { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } },
});

/** The Idempotency-Key request header of creating operations (draft-ietf-httpapi-idempotency-key-header). */
export const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe: the first request with a key runs and its response is kept for 24 hours; the same key with the same body answers that response again (with `Idempotent-Replayed: true`) and creates nothing; the same key with a different body is 422; while the first is still being processed, 409. Keys are scoped to your organization. 1-255 visible ASCII characters, bare or as a structured-field string (`\"…\"`).",
  // The rule as a pattern: a structured-field string of 1-255 visible ASCII characters, or the bare
  // characters (documented without a leading quote, which would read as a malformed string).
  schema: { type: "string", minLength: 1, maxLength: 257, pattern: '^(?:"[\\x21-\\x7E]{1,255}"|[\\x21\\x23-\\x7E][\\x21-\\x7E]{0,254})$', examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'] },
};

/** The answers an Idempotency-Key adds to an operation. */
export const idempotencyResponses = {
  "409": errorResponse("A request with the same Idempotency-Key is still being processed (or, for webhooks, the organization's subscription limit is reached)."),
  "422": errorResponse('The Idempotency-Key was already used with a different request: `{"error": "This Idempotency-Key was already used with a different request"}`.'),
};

export function buildOpenApiDocument(publicUrl: string, fragments: OpenApiFragment[]) {
  return {
    openapi: "3.1.0",
    info: {
      title: "svc API",
      version: "1.0.0",
      description: apiIntroduction,
    },
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
              scopes: {
                "meeting.create": "Create meetings",
                "meeting.read": "Read meetings",
                "meeting.update": "Reschedule, change and end meetings",
                "meeting.delete": "Cancel meetings",
                "webhook.create": "Register webhook endpoints",
                "webhook.read": "List webhook endpoints",
                "webhook.delete": "Delete webhook endpoints",
              },
            },
          },
        },
      },
      schemas: Object.assign({ Error: errorSchema }, ...fragments.map((fragment) => fragment.schemas ?? {})),
    },
  };
}
