// The administration CLI: `npm run cli -- <command> [--json]`. It talks gRPC to identity's
// IdentityAdminService (on identity's ADMIN_PORT) at SVC_IDENTITY_ADMIN_URL with the token in SVC_ADMIN_TOKEN.
import { parseArgs } from "node:util";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { IdentityAdminService } from "@svc/proto/svc/identity/v1/identity_pb";
import { commands, usage, UsageError } from "./commands.ts";
import { cliConfigSchema } from "./config.ts";

// An empty variable counts as unset.
const environment = cliConfigSchema.safeParse(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== "")));

async function main(argv: string[]): Promise<number> {
  if (!environment.success) throw new UsageError(environment.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  const { SVC_IDENTITY_ADMIN_URL: identityAdminUrl, SVC_ADMIN_TOKEN: adminToken, SVC_IDENTITY_URL: removedVariable } = environment.data;
  // The admin API moved off the gRPC port: an old setting would only meet "not implemented" there.
  if (removedVariable) {
    throw new UsageError("SVC_IDENTITY_URL is no longer read: set SVC_IDENTITY_ADMIN_URL to identity's admin port (ADMIN_PORT, default 50056)");
  }
  const [group, action, ...rest] = argv;
  if (group === "help" || group === "--help" || group === "-h") {
    process.stdout.write(usage);
    return 0;
  }
  if (group === undefined) throw new UsageError("missing command");
  const command = commands.find((candidate) => candidate.group === group && candidate.action === action);
  if (!command) throw new UsageError(`unknown command "${[group, action].filter(Boolean).join(" ")}"`);
  const { values } = parseArgs({
    args: rest,
    options: { ...command.options, json: { type: "boolean", default: false } },
    strict: true,
    allowPositionals: false,
  });
  const options = values as Record<string, string | boolean | undefined>;
  for (const [name, option] of Object.entries(command.options)) {
    if (option.required && !options[name]) throw new UsageError(`${group} ${action} needs --${name}`);
  }
  const client = createClient(IdentityAdminService, createGrpcTransport({ baseUrl: identityAdminUrl }));
  const result = await command.run(client, options as Record<string, string>, {
    headers: { authorization: `Bearer ${adminToken}` },
    timeoutMs: 15_000,
  });
  process.stdout.write(options.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
  return 0;
}

/** One line on stderr: what went wrong, in words. */
function describe(error: unknown): string {
  if (error instanceof UsageError) return `${error.message} (see: npm run cli -- help)`;
  if (error instanceof ConnectError) {
    if (error.code === Code.Unavailable) return `cannot reach the identity admin API at ${environment.data?.SVC_IDENTITY_ADMIN_URL}: ${error.rawMessage}`;
    return error.rawMessage;
  }
  // parseArgs reports unknown or malformed options with a TypeError carrying a code.
  if (error instanceof TypeError && "code" in error) return `${error.message} (see: npm run cli -- help)`;
  return error instanceof Error ? error.message : String(error);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${describe(error).replace(/\s*\n\s*/g, " ")}\n`);
    process.exit(error instanceof UsageError || (error instanceof TypeError && "code" in error) ? 2 : 1);
  },
);
