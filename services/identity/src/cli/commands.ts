import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { CallOptions, Client } from "@connectrpc/connect";
import { defaultAddresses } from "@svc/platform";
import type { ApiKey, IdentityAdminService, OAuthClient } from "@svc/proto/svc/identity/v1/identity_pb";

export class UsageError extends Error {}

interface Option {
  /** A boolean option is a flag: its value is `true` when given. */
  type: "string" | "boolean";
  required?: boolean;
  /** May be given more than once; the value is then an array of strings. */
  multiple?: boolean;
}

export interface Command {
  group: string;
  action: string;
  summary: string;
  options: Record<string, Option>;
  run(
    client: Client<typeof IdentityAdminService>,
    values: Record<string, string>,
    callOptions: CallOptions,
  ): Promise<{ json: Record<string, unknown>; text: string }>;
}

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** How `keys list` shows a key: everything but the key itself, which is never stored. */
const keyView = (key: ApiKey) => ({
  keyId: key.keyId,
  name: key.name,
  prefix: key.displayPrefix,
  userId: key.userId,
  orgId: key.orgId,
  createdAt: iso(key.createdAt),
  lastUsedAt: iso(key.lastUsedAt),
  revokedAt: iso(key.revokedAt),
});

/** How `oauth-clients list` shows a client: everything but the secret, which is never stored. */
const oauthClientView = (client: OAuthClient) => ({
  clientId: client.clientId,
  orgId: client.orgId,
  name: client.name,
  redirectUris: client.redirectUris,
  scopes: client.scopes,
  requirePkce: client.requirePkce,
  createdAt: iso(client.createdAt),
});

/** A repeatable option's values (parseArgs gives an array when `multiple` is set). */
const all = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The admin CLI's commands (docs/operations.md, "Admin CLI"); each prints one JSON object on one line with --json. */
export const commands: Command[] = [
  {
    group: "orgs",
    action: "create",
    summary: "orgs create --name NAME",
    options: { name: { type: "string", required: true } },
    async run(client, values, callOptions) {
      const { orgId } = await client.createOrganization({ name: values.name }, callOptions);
      return { json: { orgId }, text: `organization created: ${orgId}` };
    },
  },
  {
    group: "users",
    action: "create",
    summary: "users create --org ORG_ID --email EMAIL --password PASSWORD",
    options: { org: { type: "string", required: true }, email: { type: "string", required: true }, password: { type: "string", required: true } },
    async run(client, values, callOptions) {
      const { userId } = await client.createUser({ orgId: values.org, email: values.email, password: values.password }, callOptions);
      return { json: { userId }, text: `user created: ${userId}` };
    },
  },
  {
    group: "keys",
    action: "create",
    summary: "keys create --user USER_ID [--name NAME]",
    options: { user: { type: "string", required: true }, name: { type: "string" } },
    async run(client, values, callOptions) {
      const { apiKey, key } = await client.createApiKey({ userId: values.user, name: values.name ?? "" }, callOptions);
      const keyId = apiKey?.keyId ?? "";
      return { json: { keyId, key }, text: `API key created: ${keyId}\nkey (shown only now; store it safely): ${key}` };
    },
  },
  {
    group: "keys",
    action: "list",
    summary: "keys list --user USER_ID",
    options: { user: { type: "string", required: true } },
    async run(client, values, callOptions) {
      const { apiKeys } = await client.listApiKeys({ userId: values.user }, callOptions);
      const keys = apiKeys.map(keyView);
      const lines = keys.map(
        (key) =>
          `${key.keyId}  ${key.prefix}…  ${key.name}  created ${key.createdAt}  last used ${key.lastUsedAt ?? "never"}${key.revokedAt ? `  REVOKED ${key.revokedAt}` : ""}`,
      );
      return { json: { keys }, text: lines.length > 0 ? lines.join("\n") : "no API keys" };
    },
  },
  {
    group: "keys",
    action: "revoke",
    summary: "keys revoke --key-id KEY_ID",
    options: { "key-id": { type: "string", required: true } },
    async run(client, values, callOptions) {
      const { keyId } = await client.revokeApiKey({ keyId: values["key-id"] }, callOptions);
      return { json: { keyId, revoked: true }, text: `API key revoked: ${keyId}` };
    },
  },
  {
    group: "oauth-clients",
    action: "create",
    summary: 'oauth-clients create --org ORG_ID --name NAME --redirect-uri URI [--redirect-uri URI2] --scopes "meeting.create webhook.read" [--require-pkce]',
    options: {
      org: { type: "string", required: true },
      name: { type: "string", required: true },
      "redirect-uri": { type: "string", required: true, multiple: true },
      scopes: { type: "string", required: true },
      // Every authorization request must then carry a PKCE code_challenge (S256).
      "require-pkce": { type: "boolean" },
    },
    async run(client, values, callOptions) {
      const { client: created, clientSecret } = await client.createOAuthClient(
        {
          orgId: values.org,
          name: values.name,
          redirectUris: all(values["redirect-uri"]),
          // Space- or comma-separated, as an OAuth scope parameter or a list.
          scopes: (values.scopes ?? "").split(/[\s,]+/).filter(Boolean),
          requirePkce: (values["require-pkce"] as unknown) === true,
        },
        callOptions,
      );
      const clientId = created?.clientId ?? "";
      return {
        json: { clientId, clientSecret },
        text: `OAuth client created: ${clientId}\nclient secret (shown only now; store it safely): ${clientSecret}`,
      };
    },
  },
  {
    group: "oauth-clients",
    action: "list",
    summary: "oauth-clients list --org ORG_ID",
    options: { org: { type: "string", required: true } },
    async run(client, values, callOptions) {
      const { clients } = await client.listOAuthClients({ orgId: values.org }, callOptions);
      const views = clients.map(oauthClientView);
      const lines = views.map((view) => `${view.clientId}  ${view.name}  scopes ${view.scopes.join(" ")}  redirect ${view.redirectUris.join(" ")}`);
      return { json: { clients: views }, text: lines.length > 0 ? lines.join("\n") : "no OAuth clients" };
    },
  },
  {
    group: "oauth-clients",
    action: "delete",
    summary: "oauth-clients delete --client-id CLIENT_ID",
    options: { "client-id": { type: "string", required: true } },
    async run(client, values, callOptions) {
      const { clientId } = await client.deleteOAuthClient({ clientId: values["client-id"] }, callOptions);
      return { json: { clientId, deleted: true }, text: `OAuth client deleted (its grants and tokens are revoked): ${clientId}` };
    },
  },
];

export const usage = `usage: npm run cli -- <command> [--json]

commands:
${commands.map((command) => `  ${command.summary}`).join("\n")}

--json prints one JSON object on one line. The CLI talks gRPC to the identity service's admin port at
SVC_IDENTITY_ADMIN_URL (default http://127.0.0.1:${defaultAddresses.identityAdmin}) with the administrator token SVC_ADMIN_TOKEN
(default: the development token, which identity accepts only when its ADMIN_TOKEN is unset).
`;
