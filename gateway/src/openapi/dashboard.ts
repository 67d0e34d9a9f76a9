import { identityLimits } from "@svc/platform/contract";
import * as contract from "../contract/dashboard.ts";
import {
  errorResponse,
  jsonRequestBody,
  jsonResponse as json,
  tooManyRequestsResponse as tooManyRequests,
  unauthorizedResponse as unauthorized,
  type OpenApiFragment,
} from "./document.ts";

const session = [{ DashboardSession: [] }];
const sessionOnly = " Only a dashboard session may call this (API keys and OAuth access tokens get 403), with the `X-CSRF-Token` header.";
const adminOnly = " The caller must be an admin of the organization (a member gets 403).";
const common = {
  "401": unauthorized,
  "403": errorResponse("Not a dashboard session, the CSRF token is missing or wrong, or (admin operations) the caller is a member."),
  "429": tooManyRequests(),
  "500": errorResponse("Internal server error."),
};
const invalid = (what: string) => ({ "400": errorResponse(`${what} The message names each broken rule.`) });
const notFound = (what: string) => ({ "404": errorResponse(`No such ${what} in the caller's organization (another organization's id gets the same answer).`) });

/** The developer dashboard's endpoints: sessions, own API keys, OAuth clients, users, authorized apps, organization settings. */
export const dashboardOpenApi: OpenApiFragment = {
  paths: {
    "/session": {
      post: {
        operationId: "signIn",
        summary: "Sign in to the dashboard",
        description:
          "Checks e-mail and password and starts a session: sets the HttpOnly `svc_session` cookie (SameSite=Lax; Secure and `__Host-` prefixed on https) and the `svc_csrf` cookie whose value every later request must send as `X-CSRF-Token`. Failed attempts are throttled per account and per client address, together with the OAuth sign-in page; a throttled account is refused even with the right password, and the answers do not depend on whether the account exists.",
        tags: ["Dashboard"],
        security: [],
        requestBody: jsonRequestBody(contract.SignInRequest),
        responses: {
          "200": json(contract.SessionStarted, "Signed in; cookies set."),
          ...invalid("Body not a JSON object or wrong JSON types."),
          "401": errorResponse('Wrong e-mail address or password (one answer for both): `{"error": "The e-mail address or password is incorrect."}`.'),
          "429": tooManyRequests("Too many failed sign-ins for this account or from this address (exponential backoff); `Retry-After` says how long."),
        },
      },
      get: {
        operationId: "getSession",
        summary: "The signed-in user",
        description: "Who the session belongs to, their organization and role." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.SessionInfo, "The session's user."), ...common },
      },
      delete: {
        operationId: "signOut",
        summary: "Sign out",
        description: "Ends the session server-side (its cookie is refused from now on) and clears the cookies." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.SignedOut, "Signed out."), ...common },
      },
    },
    "/signup": {
      post: {
        operationId: "signUp",
        summary: "Create an organization and its first admin",
        description:
          "Only when the installation enables sign-up (`SIGNUP_ENABLED=true`); starts a session like `POST /session`. Organization name 1-200 characters, e-mail address, password 8-1024 characters.",
        tags: ["Dashboard"],
        security: [],
        requestBody: jsonRequestBody(contract.SignUpRequest),
        responses: {
          "201": json(contract.SessionStarted, "Organization and admin created, signed in."),
          ...invalid("A missing or invalid field."),
          "403": errorResponse("Sign-up is disabled on this installation."),
          "409": errorResponse("A user with this e-mail address already exists."),
          "429": tooManyRequests(),
        },
      },
    },
    "/api-keys": {
      get: {
        operationId: "listMyApiKeys",
        summary: "List your API keys",
        description: "The signed-in user's keys, revoked ones included, never the key itself." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.ApiKeyList, "The keys."), ...common },
      },
      post: {
        operationId: "createMyApiKey",
        summary: "Create an API key",
        description: "Returns the key **once** (`key`); only its SHA-256 is stored. Name 1-100 characters, no control characters." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        requestBody: jsonRequestBody(contract.CreateApiKeyRequest),
        responses: { "201": json(contract.CreatedApiKey, "The key, shown only now."), ...invalid("Missing or invalid name."), ...common },
      },
    },
    "/api-keys/{keyId}/revoke": {
      post: {
        operationId: "revokeMyApiKey",
        summary: "Revoke one of your API keys",
        description: "The key is refused from the next request on, through every replica. Revoking again keeps the first time." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.KeyPath },
        responses: { "200": json(contract.ApiKey, "The revoked key."), ...invalid("keyId is not a UUID."), ...notFound("key of yours"), ...common },
      },
    },
    "/oauth-clients": {
      get: {
        operationId: "listOAuthClients",
        summary: "List the organization's OAuth clients",
        description: "Never the secret; with the catalog of scopes a client may be allowed." + sessionOnly + adminOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.OAuthClientList, "The clients and the scope catalog."), ...common },
      },
      post: {
        operationId: "createOAuthClient",
        summary: "Register an OAuth client",
        description:
          "Name 1-100 characters; 1-10 redirect URIs, absolute http(s) URLs without fragment or credentials, compared exactly; at least one known scope. Returns `clientSecret` **once**." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestBody: jsonRequestBody(contract.OAuthClientFields),
        responses: { "201": json(contract.CreatedOAuthClient, "The client and its secret, shown only now."), ...invalid("A broken rule."), ...common },
      },
    },
    "/oauth-clients/{clientId}": {
      put: {
        operationId: "updateOAuthClient",
        summary: "Change an OAuth client's name, redirect URIs and scopes",
        description: "Same rules as creation. Removing a scope ends every grant and token of the client (users approve again)." + sessionOnly + adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.ClientPath },
        requestBody: jsonRequestBody(contract.OAuthClientFields),
        responses: { "200": json(contract.OAuthClient, "The updated client."), ...invalid("A broken rule."), ...notFound("client"), ...common },
      },
      delete: {
        operationId: "deleteOAuthClient",
        summary: "Delete an OAuth client",
        description: "Its grants, codes and tokens end at once." + sessionOnly + adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.ClientPath },
        responses: { "200": json(contract.DeletedOAuthClient, "Deleted."), ...invalid("clientId is not a UUID."), ...notFound("client"), ...common },
      },
    },
    "/oauth-clients/{clientId}/secret": {
      post: {
        operationId: "rotateOAuthClientSecret",
        summary: "Rotate an OAuth client's secret",
        description:
          "A new secret, returned **once**; the old one is refused (`invalid_client`) at once. Existing tokens keep working; refreshing them needs the new secret." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.ClientPath },
        responses: {
          "200": json(contract.CreatedOAuthClient, "The client and its new secret."),
          ...invalid("clientId is not a UUID."),
          ...notFound("client"),
          ...common,
        },
      },
    },
    "/users": {
      get: {
        operationId: "listUsers",
        summary: "List the organization's users",
        description: "With role and deactivation." + sessionOnly + adminOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.UserList, "The users."), ...common },
      },
      post: {
        operationId: "createUser",
        summary: "Create a user in the organization",
        description: "With an initial password the admin hands over; role `member` unless `admin` is given." + sessionOnly + adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestBody: jsonRequestBody(contract.CreateUserRequest),
        responses: {
          "201": json(contract.User, "The new user."),
          ...invalid("A missing or invalid field."),
          ...common,
          "409": errorResponse("A user with this e-mail address already exists."),
        },
      },
    },
    "/users/{userId}": {
      patch: {
        operationId: "updateUser",
        summary: "Change a user's role or deactivate (reactivate) them",
        description:
          "Deactivating ends the user's sessions and refuses their API keys and OAuth tokens at once (nothing is deleted; reactivating restores them). Admins cannot demote or deactivate themselves (409)." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.UserPath },
        requestBody: jsonRequestBody(contract.UpdateUserRequest),
        responses: {
          "200": json(contract.User, "The user."),
          ...invalid("Neither `role` nor `deactivated`, a wrong type or an unknown role."),
          ...notFound("user"),
          ...common,
          "409": errorResponse("You cannot demote or deactivate yourself."),
        },
      },
    },
    "/authorized-apps": {
      get: {
        operationId: "listAuthorizedApps",
        summary: "Applications you authorized",
        description: "Each approval (grant) of an OAuth application by the signed-in user, newest first." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.AuthorizedAppList, "The grants."), ...common },
      },
    },
    "/authorized-apps/{grantId}": {
      delete: {
        operationId: "revokeAuthorizedApp",
        summary: "Revoke an authorization",
        description: "Its access tokens are refused at once and its refresh tokens answer `invalid_grant`." + sessionOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.GrantPath },
        responses: {
          "200": json(contract.RevokedAuthorizedApp, "Revoked."),
          ...invalid("Malformed grantId."),
          ...notFound("authorization of yours"),
          ...common,
        },
      },
    },
    "/oauth-client-policy": {
      get: {
        operationId: "getOAuthClientPolicy",
        summary: "Which third-party OAuth clients members may authorize",
        description:
          "The organization's policy (`all`, the default, or `listed`) and the listed clients of other organizations, each with its name and the organization that registered it. Clients registered by the organization itself are always allowed and never listed." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.OAuthClientPolicy, "The policy."), ...common },
      },
      put: {
        operationId: "setOAuthClientPolicy",
        summary: "Allow all OAuth clients, or only listed ones",
        description:
          "With `listed`, a member's authorization request for an unlisted client of another organization is refused: the consent page says so and the application receives `access_denied`. Switching to `listed` also ends members' existing authorizations of unlisted clients (their tokens are refused at once)." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestBody: jsonRequestBody(contract.SetOAuthClientPolicyRequest),
        responses: { "200": json(contract.OAuthClientPolicy, "The policy, changed."), ...invalid("policy is not all or listed."), ...common },
      },
    },
    "/oauth-client-policy/allowed-clients/{clientId}": {
      put: {
        operationId: "allowOAuthClient",
        summary: "List an OAuth client",
        description:
          "Lets members authorize this client of another organization while the policy is `listed` (the list is kept while the policy is `all`). Listing a listed client again changes nothing. At most 100 clients." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.ClientPath },
        responses: {
          "200": json(contract.OAuthClientPolicy, "The policy, with the client listed."),
          ...invalid("clientId is not a UUID, or names a client of the caller's own organization (always allowed)."),
          "404": errorResponse("No OAuth client has this id."),
          "409": errorResponse("The list already holds 100 clients."),
          ...common,
        },
      },
      delete: {
        operationId: "disallowOAuthClient",
        summary: "Remove an OAuth client from the list",
        description: "While the policy is `listed`, members' authorizations of the client end at once." + sessionOnly + adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestParams: { path: contract.ClientPath },
        responses: {
          "200": json(contract.OAuthClientPolicy, "The policy, without the client."),
          ...invalid("clientId is not a UUID."),
          "404": errorResponse("The client is not on the organization's list."),
          ...common,
        },
      },
    },
    "/meeting-embedding": {
      get: {
        operationId: "getMeetingEmbedding",
        summary: "Which sites may show the organization's meetings in a frame",
        description:
          "The origins allowed to embed the join page of the organization's meetings in an `<iframe>`. Empty (the default): every site is refused (`frame-ancestors 'none'`)." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        responses: { "200": json(contract.MeetingEmbedding, "The allowed origins."), ...common },
      },
      put: {
        operationId: "setMeetingEmbedding",
        summary: "Set the sites that may show the organization's meetings in a frame",
        description:
          "Replaces the list. From the next page load on, the join page of every meeting of the organization sends `Content-Security-Policy: frame-ancestors` with exactly these origins (and no `X-Frame-Options`), so a browser shows it in a frame on those sites only, and the page posts its events (`joined`, `left`, `participant-joined`, `participant-left`, `hand-raised`, `meeting-ended`) to such a parent with that origin as `targetOrigin`. See the embedding section of the meeting room guide for the `<iframe>` to use." +
          sessionOnly +
          adminOnly,
        tags: ["Dashboard"],
        security: session,
        requestBody: jsonRequestBody(contract.SetMeetingEmbeddingRequest),
        responses: {
          "200": json(contract.MeetingEmbedding, "The list, normalized, as stored."),
          ...invalid(
            `allowedOrigins missing or not an array of strings, more than ${identityLimits.embedOriginsMax} entries, or an entry that is not an allowed origin; nothing is changed.`,
          ),
          ...common,
        },
      },
    },
  },
};
