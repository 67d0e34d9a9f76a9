// The chart's alerting rules (metrics.prometheusRule.enabled), run by Prometheus's own rule engine:
// `promtool check rules` parses every expression and annotation template, and `promtool test rules`
// feeds synthetic series through them and states which alerts fire, when, and with which labels.
// promtool is built from the Go module proxy on first use (scripts/promtool).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { find, renderChart, root } from "./chart.ts";

const execFileAsync = promisify(execFile);
const promtool = (...args: string[]) => execFileAsync("bash", [path.join(root, "scripts/promtool"), ...args], { cwd: workDir, maxBuffer: 16 * 1024 * 1024 });

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Series {
  series: string;
  values: string;
}
interface AlertTest {
  eval_time: string;
  alertname: string;
  exp_alerts: { exp_labels: Record<string, string> }[];
}

let workDir: string;
let groups: { name: string; rules: Rule[] }[];

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), "svc-alerts-"));
  const objects = await renderChart("(defaults)", ["--set", "metrics.prometheusRule.enabled=true"]);
  groups = find(objects, "PrometheusRule", "svc-alerts").spec.groups;
  writeFileSync(path.join(workDir, "rules.yaml"), stringify({ groups }));
  // The unit tests compare labels only: annotations are checked by `promtool check rules`.
  const withoutAnnotations = groups.map((group) => ({ ...group, rules: group.rules.map(({ annotations: _annotations, ...rule }) => rule) }));
  writeFileSync(path.join(workDir, "rules-labels-only.yaml"), stringify({ groups: withoutAnnotations }));
}, 15 * 60_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Runs one `promtool test rules` case over 40 minutes of one-minute samples. */
async function ruleTest(inputSeries: Series[], alertTests: AlertTest[]): Promise<string> {
  const file = path.join(workDir, `test-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    stringify({
      rule_files: ["rules-labels-only.yaml"],
      evaluation_interval: "1m",
      tests: [{ interval: "1m", input_series: inputSeries, alert_rule_test: alertTests }],
    }),
  );
  try {
    const { stdout, stderr } = await promtool("test", "rules", file);
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool test rules failed:\n${stdout}${stderr}`);
  }
}

const fires = (alertname: string, at: string, labels: Record<string, string>[]): AlertTest => ({
  eval_time: at,
  alertname,
  exp_alerts: labels.map((exp_labels) => ({ exp_labels })),
});
const silent = (alertname: string, at: string): AlertTest => ({ eval_time: at, alertname, exp_alerts: [] });

describe("Helm chart: alerting rules under Prometheus's rule engine", () => {
  it(
    "promtool check rules accepts every expression and annotation template",
    async () => {
      const { stdout, stderr } = await promtool("check", "rules", "rules.yaml");
      expect(`${stdout}${stderr}`).toMatch(/SUCCESS: 6 rules found/);
    },
    15 * 60_000,
  );

  it("webhook delivery failures: 60% failing fires after the hold time, 10% failing or another namespace's failures do not", async () => {
    const attempts = (namespace: string, outcome: string, perMinute: number) => ({
      series: `webhook_delivery_attempts_total{namespace="${namespace}",service="webhook",outcome="${outcome}",status_class="${outcome === "succeeded" ? "2xx" : "5xx"}"}`,
      values: `0+${perMinute}x40`,
    });
    await ruleTest(
      [attempts("svc", "failed", 6), attempts("svc", "succeeded", 4)],
      [silent("SvcWebhookDeliveryFailureRate", "5m"), fires("SvcWebhookDeliveryFailureRate", "20m", [{ severity: "warning" }])],
    );
    await ruleTest([attempts("svc", "failed", 1), attempts("svc", "succeeded", 9)], [silent("SvcWebhookDeliveryFailureRate", "30m")]);
    await ruleTest([attempts("other", "failed", 9), attempts("svc", "succeeded", 9)], [silent("SvcWebhookDeliveryFailureRate", "30m")]);
  });

  it("delivery backlog and outbox lag fire when the oldest item is older than the threshold for the hold time", async () => {
    await ruleTest(
      [
        { series: 'webhook_oldest_due_delivery_age_seconds{namespace="svc",service="webhook"}', values: "600x40" },
        { series: 'meeting_outbox_oldest_unsent_age_seconds{namespace="svc",service="meeting"}', values: "300x40" },
      ],
      [
        silent("SvcWebhookDeliveryBacklog", "5m"),
        fires("SvcWebhookDeliveryBacklog", "15m", [{ severity: "warning" }]),
        fires("SvcMeetingOutboxLag", "15m", [{ severity: "warning" }]),
      ],
    );
    await ruleTest(
      [
        { series: 'webhook_oldest_due_delivery_age_seconds{namespace="svc",service="webhook"}', values: "60x40" },
        { series: 'meeting_outbox_oldest_unsent_age_seconds{namespace="svc",service="meeting"}', values: "30x40" },
      ],
      [silent("SvcWebhookDeliveryBacklog", "30m"), silent("SvcMeetingOutboxLag", "30m")],
    );
  });

  it("consumer lag fires per topic and consumer group that is behind, naming them", async () => {
    await ruleTest(
      [
        { series: 'event_consumer_lag_messages{namespace="svc",service="webhook",topic="meeting.events",consumer_group="webhook"}', values: "5000x40" },
        { series: 'event_consumer_lag_messages{namespace="svc",service="meeting",topic="meeting.events",consumer_group="meeting"}', values: "3x40" },
      ],
      [fires("SvcEventConsumerLag", "15m", [{ severity: "warning", topic: "meeting.events", consumer_group: "webhook" }])],
    );
  });

  it("the gateway's 5xx rate: 10% of answers fires (critical), 1% does not, and 5xx of another service do not count", async () => {
    const answers = (service: string, status: string, perMinute: number) => ({
      series: `http_server_request_duration_seconds_count{namespace="svc",service="${service}",method="GET",route="/api/v1/meeting",status_code="${status}"}`,
      values: `0+${perMinute}x40`,
    });
    await ruleTest([answers("gateway", "500", 10), answers("gateway", "200", 90)], [fires("SvcGateway5xxRate", "20m", [{ severity: "critical" }])]);
    await ruleTest([answers("gateway", "503", 1), answers("gateway", "200", 99)], [silent("SvcGateway5xxRate", "30m")]);
    await ruleTest([answers("other", "500", 50), answers("gateway", "200", 99)], [silent("SvcGateway5xxRate", "30m")]);
  });

  it("a failed recording upload fires at once and stops 15 minutes later; successful uploads never fire", async () => {
    await ruleTest(
      [
        { series: 'livekit_egress_pipeline_uploads{namespace="svc",type="file",status="failure"}', values: "0 0 0 0 0 1x35" },
        { series: 'livekit_egress_pipeline_uploads{namespace="svc",type="file",status="success"}', values: "0+1x40" },
      ],
      [
        silent("SvcRecordingUploadsFailing", "3m"),
        fires("SvcRecordingUploadsFailing", "6m", [{ severity: "warning" }]),
        silent("SvcRecordingUploadsFailing", "25m"),
      ],
    );
  });
});
