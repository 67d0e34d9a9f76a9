import type { Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { scrapeGauges, type Registry } from "@svc/platform/telemetry";
import { readOutboxLag } from "./db/outbox-lag.ts";

/** Outbox lag, read from the database at scrape time: events written but not yet on the bus. */
export function outboxLagGauges(registry: Registry | undefined, pool: Pool, logger: Logger): void {
  if (!registry) return;
  scrapeGauges({
    registry,
    logger,
    gauges: {
      unsentEvents: { name: "meeting_outbox_unsent_events", help: "Meeting events written to the outbox and not yet published to the event bus." },
      oldestUnsentAgeSeconds: { name: "meeting_outbox_oldest_unsent_age_seconds", help: "Age of the oldest unpublished outbox event (0 when none waits)." },
    },
    read: () => readOutboxLag(pool),
  });
}
