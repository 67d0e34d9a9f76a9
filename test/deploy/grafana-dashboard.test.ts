// The on-call dashboard (deploy/helm/svc/dashboards/svc-dashboard.json): every query names only metrics the
// processes export, and it has the panels a person on call needs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { root } from "./chart.ts";
import { exportedMetricNames } from "./exported-metrics.ts";
import { metricNamesIn } from "./promql.ts";

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(path.join(root, "deploy/helm/svc/dashboards/svc-dashboard.json"), "utf8")) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string }[] };
};
const queryPanels = dashboard.panels.filter((panel) => panel.type !== "row");

let exported: Set<string>;
beforeAll(async () => {
  exported = await exportedMetricNames();
});

describe("Grafana dashboard", () => {
  it("reads expressions as PromQL: the names found are the metrics, not functions, labels or ranges", () => {
    expect(metricNamesIn('sum by (route) (rate(http_server_request_duration_seconds_count{status_code=~"5.."}[5m]))')).toEqual([
      "http_server_request_duration_seconds_count",
    ]);
    expect(metricNamesIn("histogram_quantile(0.95, sum by (le) (rate(a_bucket[$__rate_interval]))) / max(b_total)")).toEqual(["a_bucket", "b_total"]);
  });

  it("every panel's query names only metrics the processes export", () => {
    expect(queryPanels.length).toBeGreaterThan(0);
    for (const panel of queryPanels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      expect(panel.datasource, panel.title).toEqual({ type: "prometheus", uid: "${datasource}" });
      for (const { expr } of panel.targets!) {
        const names = metricNamesIn(expr);
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) expect(exported.has(name), `${panel.title}: ${name} is not exported`).toBe(true);
      }
    }
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: "datasource", type: "datasource" }));
  });

  it("has the panels a person on call needs", () => {
    const used = new Set(queryPanels.flatMap((panel) => panel.targets!.flatMap((target) => metricNamesIn(target.expr))));
    for (const needed of [
      "http_server_request_duration_seconds_count", // rate and errors per route
      "http_server_request_duration_seconds_bucket", // duration per route
      "rpc_server_duration_seconds_count", // RPC errors
      "webhook_oldest_due_delivery_age_seconds", // delivery backlog age
      "webhook_deliveries_due",
      "webhook_delivery_attempts_total", // attempts by outcome
      "event_consumer_lag_messages",
      "meeting_outbox_unsent_events",
      "credential_cache_lookups_total",
    ])
      expect(used.has(needed), needed).toBe(true);
    const byOutcome = queryPanels.find((panel) => panel.targets!.some((target) => target.expr.includes("webhook_delivery_attempts_total")));
    expect(byOutcome?.targets?.[0]?.expr).toMatch(/by \(outcome/);
    const perRoute = queryPanels.filter((panel) => panel.targets!.some((target) => /http_server_request_duration_seconds/.test(target.expr)));
    for (const panel of perRoute.slice(0, 3)) expect(panel.targets![0]!.expr, panel.title).toMatch(/route/);
  });
});
