import type { Pool } from "@svc/platform/db";
import type { VisitStore } from "../visit-store.ts";
import { visitsOf, visitsPage } from "./room-participants.ts";
import { usageOf } from "./usage.ts";

/** VisitStore on the service's Postgres schema. */
export function pgVisitStore(pool: Pool): VisitStore {
  return {
    page: (meetingId, page) => visitsPage(pool, meetingId, page),
    of: (meetingId) => visitsOf(pool, meetingId),
    usage: (orgId, days) => usageOf(pool, orgId, days),
  };
}
