// The chart's optional features and Bitnami-style pod options, rendered with the real Helm: each does
// what its values say, none is rendered by default, and the values schema refuses malformed ones.
// ci/all-features-values.yaml turns them all on (scripts/check-chart validates that rendering too).
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { chartDir, find, podSpecOf, renderChart, type K8sObject } from "./chart.ts";
import { exportedMetricNames } from "./exported-metrics.ts";
import { metricNamesIn } from "./promql.ts";

const allFeatures = "ci/all-features-values.yaml";
/** The Deployments of the chart and the values section each one takes its pod options from. */
const workloads = { gateway: "gateway", identity: "identity", meeting: "meeting", webhook: "webhook", egress: "recording" } as const;
/**
 * Egress's own metrics the recording alert uses: LiveKit Egress v1.8.6 registers
 * livekit_egress_pipeline_uploads{type,status} (pkg/stats/handler.go; status success or failure).
 */
const egressMetrics = new Set(["livekit_egress_pipeline_uploads"]);

/** The error Helm reports for values that fail the schema (or a template's `required`), or "rendered". */
const outcome = (args: string[]) =>
  renderChart("(defaults)", args).then(
    () => "rendered",
    (error: { stderr?: string }) => String(error.stderr ?? error),
  );

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

let defaults: K8sObject[];
let all: K8sObject[];
beforeAll(async () => {
  [defaults, all] = await Promise.all([renderChart("(defaults)"), renderChart(allFeatures)]);
}, 15 * 60_000);

describe("Helm chart: optional features", () => {
  it("the default values render no HTTPRoute, PrometheusRule, PodMonitor or dashboard ConfigMap, and spread over nodes only", () => {
    for (const kind of ["HTTPRoute", "PrometheusRule", "PodMonitor", "ServiceMonitor"])
      expect(
        defaults.filter((object) => object.kind === kind),
        kind,
      ).toEqual([]);
    expect(defaults.filter((object) => object.kind === "ConfigMap" && object.metadata.labels?.grafana_dashboard !== undefined)).toEqual([]);
    for (const component of ["gateway", "identity", "meeting", "webhook"]) {
      const spec = podSpecOf(find(defaults, "Deployment", `svc-${component}`)) as unknown as Record<string, any>;
      expect(
        spec.topologySpreadConstraints.map((constraint: { topologyKey: string }) => constraint.topologyKey),
        component,
      ).toEqual(["kubernetes.io/hostname"]);
      expect(spec.priorityClassName, component).toBeUndefined();
    }
  });

  it("the HTTPRoute attaches to the named Gateway for its hostnames and sends every path to the gateway Service's port", () => {
    const route = find(all, "HTTPRoute", "svc-gateway");
    const service = find(all, "Service", "svc-gateway");
    expect(route.apiVersion).toBe("gateway.networking.k8s.io/v1");
    expect(route.spec.parentRefs).toEqual([{ name: "public", namespace: "gateway-system", sectionName: "https" }]);
    expect(route.spec.hostnames).toEqual(["api.example.com"]);
    expect(route.metadata.labels?.["example.com/exposure"]).toBe("public");
    expect(route.spec.rules).toEqual([{ matches: [{ path: { type: "PathPrefix", value: "/" } }], backendRefs: [{ name: service.metadata.name, port: 80 }] }]);
    expect(service.spec.ports.find((port: { name: string }) => port.name === "http").port).toBe(80);
  });

  it("an HTTPRoute without a Gateway to attach to is refused", async () => {
    expect(await outcome(["--set", "httpRoute.enabled=true"])).toMatch(/parentRefs/);
    expect(await outcome(["--set", "httpRoute.enabled=true", "--set-json", 'httpRoute.parentRefs=[{"name":"public"}]'])).toBe("rendered");
  });

  it("the PrometheusRule alerts on webhook failures and backlog, outbox and consumer lag, the gateway's 5xx rate and recording failures, over exported metrics only", async () => {
    const exported = await exportedMetricNames();
    const rule = find(all, "PrometheusRule", "svc-alerts");
    expect(rule.metadata.labels?.release).toBe("kube-prometheus-stack");
    const rules = (rule.spec.groups as { rules: Rule[] }[]).flatMap((group) => group.rules);
    const byAlert = new Map(rules.map((candidate) => [candidate.alert, candidate]));
    const uses = {
      SvcWebhookDeliveryFailureRate: "webhook_delivery_attempts_total",
      SvcWebhookDeliveryBacklog: "webhook_oldest_due_delivery_age_seconds",
      SvcMeetingOutboxLag: "meeting_outbox_oldest_unsent_age_seconds",
      SvcEventConsumerLag: "event_consumer_lag_messages",
      SvcGateway5xxRate: "http_server_request_duration_seconds_count",
      SvcRecordingUploadsFailing: "livekit_egress_pipeline_uploads",
    };
    expect([...byAlert.keys()].sort()).toEqual(Object.keys(uses).sort());
    for (const [alert, metric] of Object.entries(uses)) {
      const { expr, labels, annotations } = byAlert.get(alert)!;
      const names = metricNamesIn(expr);
      expect(names, alert).toContain(metric);
      for (const name of names) expect(exported.has(name) || egressMetrics.has(name), `${alert}: ${name} is not exported`).toBe(true);
      // Every selector is scoped to the release's namespace, so another release's series never fire it.
      const selectors = expr.match(/\{[^}]*\}/g) ?? [];
      expect(selectors.length, alert).toBeGreaterThan(0);
      for (const selector of selectors) expect(selector, alert).toMatch(/^\{namespace="svc"/);
      expect(labels.severity, alert).toMatch(/^(warning|critical)$/);
      expect(labels.team, `${alert}: alertLabels`).toBe("media");
      expect(annotations.summary?.length, alert).toBeGreaterThan(10);
    }
    expect(byAlert.get("SvcGateway5xxRate")!.expr).toContain('service="gateway", status_code=~"5.."');
    expect(byAlert.get("SvcRecordingUploadsFailing")!.expr).toContain('status="failure"');
    expect(byAlert.get("SvcWebhookDeliveryFailureRate")!.expr).toContain('outcome!="succeeded"');
  });

  it("the alert thresholds and hold time come from the values", async () => {
    const objects = await renderChart("(defaults)", [
      "--set",
      "metrics.prometheusRule.enabled=true",
      "--set-json",
      "metrics.prometheusRule.http5xxRatio=0.02",
      "--set-json",
      "metrics.prometheusRule.consumerLagMessages=50",
      "--set",
      "metrics.prometheusRule.for=3m",
    ]);
    const rules = (find(objects, "PrometheusRule", "svc-alerts").spec.groups as { rules: Rule[] }[]).flatMap((group) => group.rules);
    const rule = (alert: string) => rules.find((candidate) => candidate.alert === alert)!;
    expect(rule("SvcGateway5xxRate").expr.trim()).toMatch(/> 0\.02$/);
    expect(rule("SvcEventConsumerLag").expr.trim()).toMatch(/> 50$/);
    expect(rule("SvcMeetingOutboxLag").for).toBe("3m");
  });

  it("the ServiceMonitor keeps the processes' own `service` label, which the alerts and the dashboard select by, and a PodMonitor scrapes egress", () => {
    const monitor = find(all, "ServiceMonitor", "svc-metrics");
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: "metrics", honorLabels: true })]);
    const podMonitor = find(all, "PodMonitor", "svc-egress");
    const egressLabels = find(all, "Deployment", "svc-egress").spec.template.metadata.labels as Record<string, string>;
    for (const [key, value] of Object.entries(podMonitor.spec.selector.matchLabels as Record<string, string>)) expect(egressLabels[key], key).toBe(value);
    expect(podMonitor.spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
  });

  it("the Grafana dashboard ConfigMap holds dashboards/svc-dashboard.json unchanged, labelled for the sidecar, in the chosen folder", () => {
    const configMap = all.find((object) => object.kind === "ConfigMap" && object.metadata.name === "svc-dashboard")!;
    expect(configMap.metadata.labels?.grafana_dashboard).toBe("1");
    expect(configMap.metadata.annotations?.grafana_folder).toBe("svc");
    const file = readFileSync(path.join(chartDir, "dashboards/svc-dashboard.json"), "utf8");
    expect(configMap.data?.["svc-dashboard.json"]).toBe(file);
    expect((JSON.parse(configMap.data!["svc-dashboard.json"]!) as { uid: string }).uid).toBe("svc-on-call");
  });
});

describe("Helm chart: Bitnami-style pod options", () => {
  it.each(Object.entries(workloads))(
    "%s: podLabels, podAnnotations, priorityClassName, extraEnvFrom, extraVolumes/extraVolumeMounts and zone spread reach its pods",
    (component, section) => {
      const deployment = find(all, "Deployment", `svc-${component}`);
      const template = deployment.spec.template as { metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
      const spec = podSpecOf(deployment) as unknown as Record<string, any>;
      const main = spec.containers[0];
      expect(template.metadata.labels).toMatchObject({ team: "media", "app.kubernetes.io/component": component });
      expect(template.metadata.annotations["example.com/owner"]).toBe("svc");
      expect(spec.priorityClassName).toBe(`svc-${section === "gateway" ? "edge" : section === "recording" ? "batch" : "core"}`);
      // The chart's own environment first, then the operator's, in the order given.
      expect(main.envFrom.slice(-2)).toEqual([
        { configMapRef: { name: `svc-extra-${component}` } },
        { secretRef: { name: `svc-extra-${component}-secrets`, optional: true } },
      ]);
      expect(spec.volumes).toContainEqual({ name: "corporate-ca", configMap: { name: "corporate-ca-bundle" } });
      expect(
        spec.volumes.find((volume: { name: string }) => volume.name === "tmp"),
        "the chart's own volumes stay",
      ).toBeDefined();
      expect(main.volumeMounts).toContainEqual({ name: "corporate-ca", mountPath: "/etc/ssl/corporate", readOnly: true });
      const selector = { "app.kubernetes.io/name": "svc", "app.kubernetes.io/instance": "svc", "app.kubernetes.io/component": component };
      expect(spec.topologySpreadConstraints).toEqual([
        { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: selector } },
        { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: selector } },
      ]);
    },
  );

  it("a podLabels entry cannot take a pod out of its Service: the chart's own labels win", async () => {
    const objects = await renderChart("(defaults)", [
      "--set",
      "gateway.podLabels.app\\.kubernetes\\.io/component=other",
      "--set",
      "gateway.podLabels.team=media",
    ]);
    const labels = find(objects, "Deployment", "svc-gateway").spec.template.metadata.labels as Record<string, string>;
    expect(labels["app.kubernetes.io/component"]).toBe("gateway");
    expect(labels.team).toBe("media");
    for (const [key, value] of Object.entries(find(objects, "Service", "svc-gateway").spec.selector as Record<string, string>))
      expect(labels[key], key).toBe(value);
  });

  it.each(Object.entries(workloads))("%s's ServiceAccount carries serviceAccount.annotations and its own", (component) => {
    expect(find(all, "ServiceAccount", `svc-${component}`).metadata.annotations).toEqual({
      "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/svc",
      "iam.gke.io/gcp-service-account": `svc-${component}@project.iam.gserviceaccount.com`,
    });
  });

  it("the values schema refuses malformed pod options", async () => {
    for (const [args, complaint] of [
      [["--set", "gateway.priorityClassName=Not_A_Name"], /priorityClassName/],
      [["--set-json", 'identity.extraEnvFrom=[{"name":"x"}]'], /extraEnvFrom/],
      [["--set-json", 'meeting.extraVolumes=[{"name":"tmp","emptyDir":{}}]'], /extraVolumes/],
      [["--set-json", 'webhook.extraVolumeMounts=[{"name":"x","mountPath":"relative"}]'], /extraVolumeMounts/],
      [["--set", "topologySpread.zone.whenUnsatisfiable=Sometimes"], /whenUnsatisfiable/],
      [["--set", "gateway.podLabels.bad label=x"], /invalid propertyName 'bad label'/],
      [["--set", "metrics.prometheusRule.for=ten minutes"], /for/],
      [["--set", "recording.unknownOption=1"], /unknownOption/],
    ] as const) {
      expect(await outcome([...args]), args.join(" ")).toMatch(complaint);
    }
  });
});
