import { CredentialVerification } from "../contract/auth.ts";
import { errorResponse, jsonResponse, tooManyRequestsResponse, unauthorizedResponse, type OpenApiFragment } from "./document.ts";

/** POST /auth (spec 4.1; docs/decisions/0002-callers-read-the-credential-cache.md). */
export const authOpenApi: OpenApiFragment = {
  paths: {
    "/auth": {
      post: {
        operationId: "verifyCredential",
        summary: "Verify a credential",
        description:
          "Resolves the Bearer token of the request (an API key `svc_...` or an OAuth access token `svc_oauth_...`) to the user and organization it belongs to. No body is sent. A revoked key is refused from the next request on.",
        tags: ["Authentication"],
        responses: {
          "200": jsonResponse(CredentialVerification, "The token is valid."),
          "400": errorResponse("A request body was sent that is not JSON, or is malformed JSON (no body is expected)."),
          "401": unauthorizedResponse,
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequestsResponse(),
          "500": errorResponse("Internal server error."),
          "503": errorResponse("The identity service is temporarily unavailable."),
        },
      },
    },
  },
};
