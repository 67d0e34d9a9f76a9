import { z } from "zod";
import { ALL_SCOPES, EMBED_ORIGIN_SOURCE, emailAddressMaxLength, GRANT_ID, identityLimits, SIGN_IN_EMAIL } from "@svc/platform/contract";
import { dateTime, httpUrlPattern, nullableDateTime, oneLineText, trimmedPattern, uuid } from "./common.ts";

// ---- Requests: JSON shapes checked here; the rules about the values are identity's, stated in
// the document from the same constants. -------------------------------------------------------

const text = (field: string) => z.string({ error: `${field} must be a string` });
const textList = (field: string) => z.array(z.string({ error: `${field} must be an array of strings` }), { error: `${field} must be an array of strings` });
const RoleName = z.enum(["admin", "member"], { error: "role must be admin or member" });

const newEmail = text("email").meta({
  description: "An e-mail address (one `@`, a dot in the domain, no spaces); trimmed.",
  maxLength: emailAddressMaxLength,
  pattern: trimmedPattern(SIGN_IN_EMAIL.source.slice(1, -1)),
});
const newPassword = text("password").meta({
  description: `${identityLimits.passwordMinLength}-${identityLimits.passwordMaxLength} characters.`,
  minLength: identityLimits.passwordMinLength,
  maxLength: identityLimits.passwordMaxLength,
});
const name = oneLineText("name", identityLimits.nameMaxLength, "A name people recognise.");
const idOf = (what: string) => z.string().meta({ format: "uuid", description: `The ${what}'s id (UUID).` });

// A redirect URI as identity accepts it (services/identity/src/oauth/clients/redirect-uri.ts): absolute http(s) as RFC 3986
// spells it, no fragment or credentials; https in production except loopback.
const redirectUri = z.string({ error: "redirectUris must be an array of strings" }).meta({
  format: "uri",
  maxLength: identityLimits.redirectUriMaxLength,
  pattern: httpUrlPattern("[A-Za-z0-9.-]+", { allowHttp: true, fragment: false }),
  description: "Absolute http(s) URL without fragment or credentials, compared exactly. https in production, except loopback (127.0.0.1, [::1], localhost).",
});

/** Marks fields required in the document that the route lets through missing, for identity to refuse with every other problem. */
const documentedRequired = (...fields: string[]) => ({
  override: ({ jsonSchema }: { jsonSchema: { required?: string[] } }) => void (jsonSchema.required = fields),
});

export const SignInRequest = z
  .object({ email: text("email").optional(), password: text("password").optional() })
  .meta({ id: "SignInRequest", ...documentedRequired("email", "password") });

export const SignUpRequest = z
  .object({
    organizationName: oneLineText("organizationName", identityLimits.organizationNameMaxLength, "The organization's name.").optional(),
    email: newEmail.optional(),
    password: newPassword.optional(),
  })
  .meta({ id: "SignUpRequest", ...documentedRequired("organizationName", "email", "password") });

export const CreateApiKeyRequest = z.object({ name: name.optional() }).meta({ id: "CreateApiKeyRequest", ...documentedRequired("name") });

export const OAuthClientFields = z
  .object({
    name: name.optional(),
    redirectUris: z
      .array(redirectUri, { error: "redirectUris must be an array of strings" })
      .meta({ minItems: 1, maxItems: identityLimits.redirectUrisMax, description: "Duplicates are dropped." })
      .optional(),
    scopes: textList("scopes")
      .meta({
        minItems: 1,
        description: "Duplicates are dropped.",
        override: ({ jsonSchema }) => void (jsonSchema.items = { type: "string", enum: ALL_SCOPES }),
      })
      .optional(),
    requirePkce: z.boolean().optional().meta({
      description:
        "Every authorization request must then carry a PKCE `code_challenge` (S256), although the client authenticates with its secret. Default false: schedulers such as Cal.com do not send one. On PUT, an absent value turns it off.",
    }),
  })
  .meta({ id: "OAuthClientFields", ...documentedRequired("name", "redirectUris", "scopes") });

export const CreateUserRequest = z
  .object({ email: newEmail.optional(), password: newPassword.optional(), role: RoleName.optional() })
  .meta({ id: "CreateUserRequest", ...documentedRequired("email", "password") });

export const UpdateUserRequest = z
  .object({ role: RoleName.optional(), deactivated: z.boolean({ error: "deactivated must be true or false" }).optional() })
  .meta({ id: "UpdateUserRequest", override: ({ jsonSchema }) => void (jsonSchema.anyOf = [{ required: ["role"] }, { required: ["deactivated"] }]) });

export const KeyPath = z.object({ keyId: idOf("key") });
export const ClientPath = z.object({ clientId: idOf("client") });
export const UserPath = z.object({ userId: idOf("user") });
export const GrantPath = z.object({ grantId: z.string().meta({ pattern: GRANT_ID.source, description: "The grant's id." }) });

// ---- Responses ------------------------------------------------------------------------------

export const SessionUser = z
  .object({ userId: uuid(), orgId: uuid(), organizationName: z.string(), email: z.string(), role: z.enum(["admin", "member"]) })
  .meta({ id: "SessionUser" });

export const SessionStarted = z
  .object({
    user: SessionUser,
    expiresAt: dateTime(),
    idleTimeoutSeconds: z.int(),
    csrfToken: z.string().meta({ description: "Also in the CSRF cookie; send it as X-CSRF-Token." }),
  })
  .meta({ id: "SessionStarted" });

export const SessionInfo = z.object({ user: SessionUser, expiresAt: dateTime() }).meta({ id: "SessionInfo" });
export const SignedOut = z.object({ signedOut: z.literal(true) }).meta({ id: "SignedOut" });

export const ApiKey = z
  .object({
    keyId: uuid(),
    name: z.string(),
    prefix: z.string().meta({ description: "The first 12 characters, to recognise the key." }),
    createdAt: dateTime(),
    lastUsedAt: nullableDateTime(),
    revokedAt: nullableDateTime(),
  })
  .meta({ id: "ApiKey" });

export const ApiKeyList = z.object({ apiKeys: z.array(ApiKey) }).meta({ id: "ApiKeyList" });
export const CreatedApiKey = ApiKey.extend({ key: z.string().meta({ description: "Shown only now." }) }).meta({ id: "CreatedApiKey" });

export const OAuthClient = z
  .object({
    clientId: uuid(),
    name: z.string(),
    redirectUris: z.array(z.string()),
    scopes: z.array(z.string()),
    requirePkce: z.boolean().meta({ description: "Every authorization request must carry a PKCE code_challenge (S256)." }),
    createdAt: dateTime(),
  })
  .meta({ id: "OAuthClient" });

export const CreatedOAuthClient = OAuthClient.extend({ clientSecret: z.string().meta({ description: "Shown only now." }) }).meta({ id: "CreatedOAuthClient" });

export const OAuthClientList = z
  .object({ clients: z.array(OAuthClient), scopeCatalog: z.array(z.object({ scope: z.string(), description: z.string() })) })
  .meta({ id: "OAuthClientList" });

export const DeletedOAuthClient = z.object({ clientId: z.string(), deleted: z.literal(true) }).meta({ id: "DeletedOAuthClient" });

export const User = z
  .object({
    userId: uuid(),
    email: z.string(),
    role: z.enum(["admin", "member"]),
    createdAt: dateTime(),
    deactivated: z.boolean(),
    deactivatedAt: nullableDateTime(),
  })
  .meta({ id: "User" });

export const UserList = z.object({ users: z.array(User) }).meta({ id: "UserList" });

export const AuthorizedAppList = z
  .object({
    apps: z.array(z.object({ grantId: z.string(), clientId: z.string(), name: z.string(), scopes: z.array(z.string()), grantedAt: dateTime() })),
  })
  .meta({ id: "AuthorizedAppList" });

const PolicyName = z.enum(["all", "listed"], { error: "policy must be all or listed" });

export const SetOAuthClientPolicyRequest = z
  .object({
    policy: PolicyName.meta({
      description: "`all`: members may authorize any organization's OAuth client. `listed`: only the listed clients (and always the organization's own).",
    }).optional(),
  })
  .meta({ id: "SetOAuthClientPolicyRequest", ...documentedRequired("policy") });

export const OAuthClientPolicy = z
  .object({
    policy: PolicyName,
    allowedClients: z.array(
      z.object({
        clientId: z.string(),
        name: z.string().meta({ description: "The client's name, as its organization registered it." }),
        organizationName: z.string().meta({ description: "The organization that registered the client." }),
        addedAt: dateTime(),
      }),
    ),
  })
  .meta({ id: "OAuthClientPolicy" });

export const RevokedAuthorizedApp = z.object({ grantId: z.string(), revoked: z.literal(true) }).meta({ id: "RevokedAuthorizedApp" });

// An origin as identity accepts it (services/identity/src/embedding/embed-origins.ts, EMBED_ORIGIN).
const embedOrigin = z.string({ error: "allowedOrigins must be an array of strings" }).meta({
  maxLength: identityLimits.embedOriginMaxLength,
  pattern: trimmedPattern(EMBED_ORIGIN_SOURCE),
  description:
    "An origin: `https://` and a host name (an internationalised one in its punycode form), an optional port, nothing after it but an optional `/`. Plain `http://` only for `localhost` and `127.0.0.1` (trying the embed on your own machine). No wildcard, path, query or IP address. Normalized: lower case, without the default port or a trailing slash.",
  examples: ["https://app.example.com"],
});

export const SetMeetingEmbeddingRequest = z
  .object({
    allowedOrigins: z.array(embedOrigin, { error: "allowedOrigins is required: an array of origins (strings)" }).meta({
      maxItems: identityLimits.embedOriginsMax,
      description: `The whole list, replacing the one stored (\`[]\`: no site may frame the meetings). At most ${identityLimits.embedOriginsMax} entries; duplicates (after normalizing) are kept once.`,
    }),
  })
  // Required here, not left to identity: a missing list must not read as an empty one and clear it.
  .meta({ id: "SetMeetingEmbeddingRequest" });

export const MeetingEmbedding = z
  .object({
    allowedOrigins: z.array(z.string()).meta({
      description:
        "The origins allowed to frame the organization's meetings, normalized, in the order given. The join page sends exactly these in `Content-Security-Policy: frame-ancestors` (`'none'` when empty) and posts its events only to a parent among them.",
    }),
  })
  .meta({ id: "MeetingEmbedding" });
