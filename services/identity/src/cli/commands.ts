import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { CallOptions, Client } from "@connectrpc/connect";
import type { ApiKey, IdentityAdminService } from "@svc/proto/svc/identity/v1/identity_pb";

export class UsageError extends Error {}

interface Option {
  type: "string";
  required?: boolean;
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

/** Exactly the commands of the issue; each prints one JSON object on one line with --json. */
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
];

export const usage = `usage: npm run cli -- <command> [--json]

commands:
${commands.map((command) => `  ${command.summary}`).join("\n")}

--json prints one JSON object on one line. The CLI talks gRPC to the identity service at
SVC_IDENTITY_URL (default http://127.0.0.1:50051) with the administrator token SVC_ADMIN_TOKEN
(default: the development token, which identity accepts only when its ADMIN_TOKEN is unset).
`;
