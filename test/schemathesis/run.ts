// Fuzzes the running platform against its own OpenAPI document with schemathesis (PyPI, pinned in
// scripts/schemathesis): a stack in full mode (real Postgres, Redis, Kafka from scripts/infra), a
// tenant with an API key (given to the operations that take one, schemathesis.toml), then every
// check (schemathesis' default; the exceptions, with reasons, are in schemathesis.toml) and every
// phase: examples, coverage, fuzzing, and the stateful phase, which chains operations through the
// document's links. Its output is passed on without its pytest-shaped summary line
// (schemathesis-process.ts). The exit code is schemathesis'; reports (JUnit, NDJSON) go to
// SCHEMATHESIS_REPORT_DIR (default: <tmp>/svc-schemathesis/report).
//
// Usage: eval "$(bash scripts/infra up)" && scripts/node test/schemathesis/run.ts [extra schemathesis arguments]
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startStack } from "../support/stack.ts";
import { openSession } from "../dashboard/support/dashboard-session.ts";
import { createTenant } from "../support/tenants.ts";
import { closingLine, junitCounts } from "../support/closing-line.ts";
import { runSchemathesis } from "./schemathesis-process.ts";

// Schemathesis keeps its crash cache and example database in its working directory: not the repository's.
const workDir = path.join(os.tmpdir(), "svc-schemathesis");
mkdirSync(workDir, { recursive: true });
const reportDir = process.env.SCHEMATHESIS_REPORT_DIR ?? path.join(workDir, "report");
const log = (message: string) => process.stderr.write(`schemathesis run: ${message}\n`);

// The limits protect production from abuse; here they would answer 429 instead of exercising the
// routes, so they are raised far above what the fuzzer sends.
// The fuzzer's wrong sign-ins all come from 127.0.0.1, so the per-address sign-in throttle is
// raised too. The stack has its own media server: a join opens the meeting's room there first
// (with its cap), and answers 503 when no media server can (see join-grants.ts).
const stack = await startStack({
  media: true,
  env: {
    RATE_LIMIT_PER_SECOND: "100000",
    JOIN_GRANTS_PER_MINUTE: "1000000",
    JOIN_GRANTS_PER_MEETING_PER_MINUTE: "1000000",
    JOIN_GRANTS_PER_LINK_PER_MINUTE: "1000000",
    LOBBY_WAITING_PER_ADDRESS: "10000",
    CHAT_MESSAGES_PER_MINUTE: "100000",
    SIGNIN_MAX_FAILURES_PER_ADDRESS: "100000",
  },
});
let code = 1;
const startedAt = Date.now();
try {
  const tenant = await createTenant(stack);
  // A second user of the organization holds the dashboard session, so what the fuzzer does to its
  // own keys (revoke) leaves the API key above working.
  const email = `dashboard-${tenant.orgId}@example.com`;
  const password = `pw-${tenant.orgId}`;
  await stack.cli("users", "create", "--org", tenant.orgId, "--email", email, "--password", password);
  const session = await openSession(stack, email, password);
  const sessionCookie = session.cookieHeader
    .split("; ")
    .find((pair) => pair.startsWith("svc_session="))!
    .slice("svc_session=".length);
  log(`stack at ${stack.gatewayUrl}, tenant ${tenant.orgId}`);
  const args = [
    "--config-file",
    path.join(import.meta.dirname, "schemathesis.toml"),
    "run",
    `${stack.gatewayUrl}/api/v1/openapi.json`,
    "--phases",
    "examples,coverage,fuzzing,stateful",
    "--max-examples",
    process.env.SCHEMATHESIS_MAX_EXAMPLES ?? "50",
    "--seed",
    process.env.SCHEMATHESIS_SEED ?? "1",
    // One worker: with several, Python 3.11's compiler occasionally fails inside schemathesis
    // ("SystemError: AST constructor recursion depth mismatch") when threads compile patterns at once.
    "--workers",
    process.env.SCHEMATHESIS_WORKERS ?? "1",
    "--no-color",
    "--report",
    "junit,ndjson",
    "--report-dir",
    reportDir,
    ...process.argv.slice(2),
  ];
  // SIGTERM or SIGINT (CI's timeout, Ctrl-C) stops schemathesis; the stack is then stopped below,
  // rather than both being left running.
  const stopped = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stopped.abort());
  code = await runSchemathesis(args, {
    signal: stopped.signal,
    cwd: workDir,
    env: {
      ...process.env,
      SVC_API_KEY: tenant.apiKey,
      SVC_SESSION: sessionCookie,
      SVC_CSRF_TOKEN: session.csrfToken,
      SCHEMATHESIS_HOOKS: "request_hooks",
      PYTHONPATH: import.meta.dirname,
    },
  });
} catch (error) {
  log(String(error));
  for (const service of ["gateway", "meeting", "identity", "webhook"] as const) process.stderr.write(stack.logs(service).slice(-4000));
} finally {
  await stack.stop();
}
// The run's closing line, from this run's JUnit report: one test case per operation.
const report = readdirSync(reportDir)
  .filter((name) => name.startsWith("junit-") && name.endsWith(".xml"))
  .map((name) => path.join(reportDir, name))
  .filter((file) => statSync(file).mtimeMs >= startedAt)
  .sort()
  .at(-1);
if (report) process.stdout.write(`${closingLine("schemathesis", junitCounts(readFileSync(report, "utf8")))}\n`);
else log("no JUnit report was written");
process.exit(code);
