import pg from "pg";
import type { Logger } from "@svc/platform";

/**
 * LISTEN/NOTIFY channel on which new or re-scheduled deliveries wake every dispatcher replica: the
 * statements that make deliveries due notify it (pg_notify, delivered on commit), this listener hears it.
 */
export const DUE_CHANNEL = "webhook_deliveries_due";

export interface DueNotifications {
  close(): Promise<void>;
}

/**
 * Calls `onDue` whenever any replica stores or re-schedules deliveries (NOTIFY on commit), so
 * every dispatcher wakes at once instead of waiting for its next poll. Uses its own connection
 * (LISTEN is per session) and reconnects after losing it; the dispatcher's poll covers the gap.
 */
export function listenForDueDeliveries(options: { databaseUrl: string; logger: Logger; onDue: () => void }): DueNotifications {
  let client: pg.Client | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async () => {
    const next = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 5_000 });
    next.on("notification", () => options.onDue());
    next.on("error", (error) => {
      options.logger.warn({ error: error.message }, "lost the delivery notification connection; reconnecting");
      void next.end().catch(() => undefined);
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${DUE_CHANNEL}`);
      if (closed) return void (await next.end());
      client = next;
      // Anything stored while we were not listening is due now.
      options.onDue();
    } catch (error) {
      options.logger.warn({ error: (error as Error).message }, "could not listen for delivery notifications; retrying");
      void next.end().catch(() => undefined);
      scheduleReconnect();
    }
  };

  const scheduleReconnect = () => {
    client = undefined;
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, 1_000);
  };

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await client?.end().catch(() => undefined);
    },
  };
}
