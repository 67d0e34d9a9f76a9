// The chart's metrics: each process gets METRICS_PORT and a named `metrics` port on its pod and
// Service, one NetworkPolicy admits scraping on that port only, and a ServiceMonitor for the
// Prometheus Operator is rendered when asked for.
import { describe, expect, it } from "vitest";
import { components, environmentOf, find, podSpecOf, renderChart, startEnvironment, type Component, type K8sObject } from "./chart.ts";

const componentNames = Object.keys(components) as Component[];
const nameOf = (component: string) => `svc-${component}`;
const container = (objects: K8sObject[], component: Component) => podSpecOf(find(objects, "Deployment", nameOf(component))).containers[0]!;

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values: string[] }[];
}
/** Whether `labels` satisfy a Kubernetes label selector (the In operator is the only one the chart uses). */
function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every((expression) => {
    if (expression.operator !== "In") throw new Error(`unexpected selector operator ${expression.operator}`);
    return expression.values.includes(labels[expression.key] ?? "");
  });
  return byLabel && byExpression;
}

const render = (args: string[] = []) => renderChart("(defaults)", args);

describe("Helm chart: metrics", () => {
  it(
    "by default every process serves metrics on METRICS_PORT, declared as its `metrics` port and Service port, and no ServiceMonitor is rendered",
    async () => {
      const objects = await render();
      for (const component of componentNames) {
        const main = container(objects, component);
        const config = components[component].schema.parse(startEnvironment(objects, main)) as Record<string, unknown>;
        expect(config.METRICS_PORT, component).toBe(9464);
        expect(main.ports?.find((port) => port.name === "metrics")?.containerPort, component).toBe(9464);
        const service = find(objects, "Service", nameOf(component));
        expect(service.spec.ports, component).toContainEqual({ name: "metrics", port: 9464, targetPort: "metrics", protocol: "TCP", appProtocol: "http" });
      }
      expect(objects.filter((object) => object.kind === "ServiceMonitor")).toEqual([]);
    },
    15 * 60_000,
  );

  it("one NetworkPolicy admits scraping of every component's metrics port, and of no other port; metrics.networkPolicyFrom narrows the sources", async () => {
    const peers = [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }];
    for (const [args, from] of [
      [[], undefined],
      [["--set-json", `metrics.networkPolicyFrom=${JSON.stringify(peers)}`], peers],
    ] as const) {
      const objects = await render([...args]);
      const policy = find(objects, "NetworkPolicy", nameOf("metrics"));
      expect(policy.spec.policyTypes).toEqual(["Ingress"]);
      expect(policy.spec.ingress).toEqual([{ ports: [{ port: "metrics", protocol: "TCP" }], ...(from ? { from } : {}) }]);
      for (const component of componentNames) {
        const podLabels = find(objects, "Deployment", nameOf(component)).spec.template.metadata.labels as Record<string, string>;
        expect(selects(policy.spec.podSelector, podLabels), component).toBe(true);
      }
      // Not the migration Jobs' pods.
      for (const job of objects.filter((object) => object.kind === "Job"))
        expect(selects(policy.spec.podSelector, job.spec.template.metadata.labels), job.metadata.name).toBe(false);
    }
  });

  it("metrics.serviceMonitor.enabled renders a ServiceMonitor scraping /metrics on every component's Service, with the labels given", async () => {
    const objects = await render(["--set", "metrics.serviceMonitor.enabled=true", "--set", "metrics.serviceMonitor.labels.release=kube-prometheus-stack"]);
    const monitor = find(objects, "ServiceMonitor", nameOf("metrics"));
    expect(monitor.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(monitor.metadata.labels?.release).toBe("kube-prometheus-stack");
    expect(monitor.spec.endpoints).toEqual([{ port: "metrics", path: "/metrics", interval: "30s", scrapeTimeout: "10s", honorLabels: true }]);
    for (const component of componentNames) {
      const service = find(objects, "Service", nameOf(component));
      expect(selects(monitor.spec.selector, service.metadata.labels ?? {}), component).toBe(true);
    }
    const selected = objects.filter((object) => object.kind === "Service" && selects(monitor.spec.selector, object.metadata.labels ?? {}));
    expect(selected.map((service) => service.metadata.name).sort()).toEqual(componentNames.map(nameOf).sort());
  });

  it("metrics.enabled=false leaves metrics off: no METRICS_PORT, no metrics port, no policy, no ServiceMonitor", async () => {
    const objects = await render(["--set", "metrics.enabled=false", "--set", "metrics.serviceMonitor.enabled=true"]);
    for (const component of componentNames) {
      const main = container(objects, component);
      expect(environmentOf(objects, main).has("METRICS_PORT"), component).toBe(false);
      expect(
        main.ports?.map((port) => port.name),
        component,
      ).not.toContain("metrics");
      expect(find(objects, "Service", nameOf(component)).spec.ports.map((port: { name: string }) => port.name)).not.toContain("metrics");
    }
    expect(objects.some((object) => object.metadata.name === nameOf("metrics"))).toBe(false);
  });

  it("the values schema refuses a metrics port outside 1-65535 and an unknown metrics value", async () => {
    const refusal = (args: string[]) =>
      render(args).then(
        () => "rendered",
        (error: { stderr?: string }) => String(error.stderr ?? error),
      );
    expect(await refusal(["--set", "metrics.port=0"])).toMatch(/values don't meet the specifications of the schema/);
    expect(await refusal(["--set", "metrics.prot=9464"])).toMatch(/values don't meet the specifications of the schema/);
    expect(await refusal(["--set", "metrics.serviceMonitor.interval=often"])).toMatch(/values don't meet the specifications of the schema/);
  });
});
