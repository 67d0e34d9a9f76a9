// Applies the meeting schema's pending migrations and exits. The Helm chart's pre-install/pre-upgrade
// Job runs it (node services/meeting/dist/migrate.js), so new pods start against an up-to-date schema;
// main.ts applies the same migrations at start too (advisory-locked, so both are safe at once).
import path from "node:path";
import { runMigrationsAndExit } from "@svc/platform/db";

await runMigrationsAndExit({ service: "meeting", schema: "meeting", dir: path.join(import.meta.dirname, "../migrations"), idempotencyKeys: true });
