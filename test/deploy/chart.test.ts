// The Helm chart agrees with the code: every variable it sets is one the process reads, nothing a
// process requires is missing, the values parse with the process's own configuration schema, ports
// and probes are the ones the process listens on, NetworkPolicies admit exactly the callers the
// configuration wires up, and no credential is ever a plain value.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_ENVIRONMENT, SERVICE_NODE_FLAGS, TRACING_DEPLOYMENT_VARIABLES, TRACING_REGISTER_MODULE, tracingConfigured } from "@svc/platform";
import {
  components,
  dockerfile,
  environmentOf,
  isCredential,
  optionalCredentials,
  find,
  imageEnvironment,
  podSpecOf,
  renderChart,
  root,
  startEnvironment,
  valuesFiles,
  variablesOf,
  type Component,
  type Container,
  type K8sObject,
} from "./chart.ts";
import { workerConfigSchema as transcriberSchema } from "../../services/meeting/src/transcription/worker-config.ts";

/** Release "svc" of chart "svc": every component's resources are named svc-<component>. */
const nameOf = (component: string) => `svc-${component}`;
const componentNames = Object.keys(components) as Component[];

/** Which configuration variable holds the port each named container port must equal. */
const portVariable: Record<string, string> = {
  grpc: "GRPC_PORT",
  "grpc-internal": "INTERNAL_GRPC_PORT",
  oauth: "OAUTH_PORT",
  admin: "ADMIN_PORT",
  http: "PORT",
  "media-webhooks": "LIVEKIT_WEBHOOK_PORT",
  metrics: "METRICS_PORT",
};

/** Services that own a schema (a migrations folder) and so get a migration Job. */
const servicesWithMigrations = readdirSync(path.join(root, "services")).filter(
  (name) => existsSync(path.join(root, "services", name, "migrations")) && name !== "platform",
);

function mainContainer(objects: K8sObject[], component: Component): Container {
  const containers = podSpecOf(find(objects, "Deployment", nameOf(component))).containers;
  expect(containers, `${component}: one container per pod`).toHaveLength(1);
  return containers[0]!;
}

describe.each(valuesFiles)("Helm chart with %s", (valuesFile) => {
  let objects: K8sObject[];
  beforeAll(async () => {
    objects = await renderChart(valuesFile);
  }, 15 * 60_000); // the first run builds Helm with go install

  it("renders no Secret and passes every credential only by Secret reference", () => {
    expect(objects.filter((object) => object.kind === "Secret")).toEqual([]);
    const workloads = objects.filter((object) => object.kind === "Deployment" || object.kind === "Job" || object.kind === "Pod");
    expect(workloads.length).toBeGreaterThan(0);
    for (const workload of workloads) {
      for (const container of podSpecOf(workload).containers) {
        for (const [name, entry] of environmentOf(objects, container)) {
          if (isCredential(name)) expect(entry.source, `${workload.metadata.name}: ${name}`).toBe("secret");
          if (name === "REDIS_URL" && entry.value !== undefined) expect(new URL(entry.value).password, "REDIS_URL with a password").toBe("");
          if (entry.value !== undefined) expect(entry.value, `${workload.metadata.name}: ${name} carries a URL password`).not.toMatch(/:\/\/[^/\s]*:[^/\s]*@/);
        }
      }
    }
  });

  describe.each(componentNames)("%s", (component) => {
    const { schema, workspace } = components[component];

    it("sets only environment variables the process reads (its configSchema, or the tracing hook)", () => {
      const reads = [...variablesOf(schema).reads, ...TRACING_DEPLOYMENT_VARIABLES];
      const set = [...environmentOf(objects, mainContainer(objects, component)).keys()];
      expect(
        set.filter((name) => !reads.includes(name)),
        `set by the chart but not read by ${component}`,
      ).toEqual([]);
    });

    it("sets every variable the process requires", () => {
      const { required } = variablesOf(schema);
      const set = new Set([...environmentOf(objects, mainContainer(objects, component)).keys(), ...Object.keys(imageEnvironment())]);
      expect(
        required.filter((name) => !set.has(name)),
        `required by ${component} but not set`,
      ).toEqual([]);
    });

    it("passes every credential the process reads (a development default must never run in a cluster)", () => {
      const { reads } = variablesOf(schema);
      const env = environmentOf(objects, mainContainer(objects, component));
      const missing = reads.filter((name) => isCredential(name) && !optionalCredentials.has(name) && env.get(name)?.source !== "secret");
      expect(missing, `credentials ${component} reads that the chart does not pass from a Secret`).toEqual([]);
    });

    it("gives a configuration the process accepts in production (NODE_ENV from the image), listening on all interfaces", () => {
      const env = startEnvironment(objects, mainContainer(objects, component));
      expect(env.NODE_ENV).toBe("production");
      const parsed = schema.safeParse(env);
      expect(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`)).toEqual([]);
      expect((parsed.data as Record<string, unknown>).HOST).toBe("0.0.0.0");
    });

    it("traces exactly when otel.enabled: the hook preloaded, the OTLP endpoint and a service name of its own", () => {
      const env = startEnvironment(objects, mainContainer(objects, component));
      const enabled = valuesFile === "ci/production-values.yaml";
      expect(tracingConfigured(env)).toBe(enabled);
      if (!enabled) {
        expect(Object.keys(env).filter((name) => (TRACING_DEPLOYMENT_VARIABLES as readonly string[]).includes(name))).toEqual([]);
        return;
      }
      expect(env.NODE_OPTIONS).toBe(`--import=${TRACING_REGISTER_MODULE}`);
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://otel-collector.observability:4318");
      expect(env.OTEL_SERVICE_NAME).toBe(`svc-${component}`);
      expect(env.OTEL_TRACES_SAMPLER_ARG).toBe("0.1");
    });

    it("declares the ports the process listens on, and probes them", () => {
      const container = mainContainer(objects, component);
      const config = schema.parse(startEnvironment(objects, container)) as Record<string, unknown>;
      const ports = container.ports ?? [];
      expect(ports.length).toBeGreaterThan(0);
      for (const port of ports) {
        const variable = portVariable[port.name ?? ""];
        expect(variable, `container port ${port.name} has no known variable`).toBeDefined();
        expect(variable! in config, `${component} does not read ${variable}`).toBe(true);
        expect(port.containerPort, `${port.name} = ${variable}`).toBe(config[variable!]);
      }
      const probes = [container.startupProbe, container.readinessProbe, container.livenessProbe].filter((probe) => probe !== undefined);
      if (component === "gateway") {
        expect(container.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
        expect(container.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" });
      } else {
        // Kubernetes-native gRPC probes (grpc.health.v1) on the port the process serves gRPC on.
        expect(probes).toHaveLength(3);
        for (const probe of probes) expect(probe.grpc?.port).toBe(config.GRPC_PORT);
      }
      const service = find(objects, "Service", nameOf(component));
      for (const servicePort of service.spec.ports as { name: string; targetPort: string }[]) {
        expect(
          ports.map((port) => port.name),
          `Service port ${servicePort.name}`,
        ).toContain(servicePort.targetPort);
      }
    });

    it("runs the compiled entry point of its workspace, from the one image", () => {
      const container = mainContainer(objects, component);
      expect(container.command).toEqual(["node", ...SERVICE_NODE_FLAGS, `${workspace}/dist/main.js`]);
      // The image's default command (docker run without one) is the gateway's, flags included.
      if (component === "gateway") expect(JSON.parse(/^CMD\s+(\[.*\])\s*$/m.exec(readFileSync(dockerfile, "utf8"))![1]!)).toEqual(container.command);
      // And the environment every process starts with (the allocator's settings), from the image.
      expect(imageEnvironment()).toMatchObject(SERVICE_ENVIRONMENT);
      expect(existsSync(path.join(root, workspace, "src/main.ts"))).toBe(true);
      // Every process but LiveKit Egress (recording), which needs GStreamer and Chromium, and the
      // transcription worker, which needs its Python environment: images of their own.
      const images = new Set(
        objects
          .filter(
            (object) =>
              (object.kind === "Deployment" || object.kind === "Job") &&
              object.metadata.name !== nameOf("egress") &&
              object.metadata.name !== nameOf("transcriber"),
          )
          .flatMap((object) => podSpecOf(object).containers.map((c) => c.image)),
      );
      expect(images.size).toBe(1);
    });

    it("runs non-root on a read-only root filesystem without capabilities, with its own ServiceAccount, resources and selectors", () => {
      const deployment = find(objects, "Deployment", nameOf(component));
      const pod = podSpecOf(deployment);
      const container = mainContainer(objects, component);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.serviceAccountName).toBe(nameOf(component));
      find(objects, "ServiceAccount", nameOf(component));
      expect(container.resources?.requests).toBeDefined();
      expect(container.resources?.limits?.memory).toBeDefined();
      const labels = deployment.spec.template.metadata.labels as Record<string, string>;
      expect(labels).toMatchObject(deployment.spec.selector.matchLabels);
      expect(labels).toMatchObject(find(objects, "Service", nameOf(component)).spec.selector);
      expect(labels).toMatchObject(find(objects, "NetworkPolicy", nameOf(component)).spec.podSelector.matchLabels);
    });
  });

  it("runs the transcription worker exactly when transcriber.enabled: its own image, its configuration's variables, the meeting service's storage with its reading pair only, no caller", () => {
    const deployment = objects.find((object) => object.kind === "Deployment" && object.metadata.name === nameOf("transcriber"));
    const enabled = ["ci/all-features-values.yaml", "ci/recording-s3-values.yaml", "ci/local-cluster-values.yaml"].includes(valuesFile);
    expect(deployment !== undefined, "a transcriber Deployment").toBe(enabled);
    if (!deployment) return;
    const pod = podSpecOf(deployment);
    const container = pod.containers[0]!;
    expect(container.image).not.toBe(mainContainer(objects, "meeting").image);
    expect(container.command).toEqual(["node", ...SERVICE_NODE_FLAGS, "services/meeting/dist/transcription/worker-main.js"]);
    expect(existsSync(path.join(root, "services/meeting/src/transcription/worker-main.ts"))).toBe(true);
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBe(nameOf("transcriber"));
    // The chart's defaults, sized from docs/transcription.md "Cost": a 300-second piece peaked at
    // 599 MB beside the Node worker (the local cluster requests less CPU and memory on its shared
    // 2-core node, with the same limit).
    expect(container.resources).toMatchObject(
      valuesFile === "ci/local-cluster-values.yaml"
        ? { requests: { cpu: "100m", memory: "512Mi" }, limits: { memory: "1Gi" } }
        : { requests: { cpu: "1000m", memory: "768Mi" }, limits: { memory: "1Gi" } },
    );

    // Every variable it is given is one the worker reads, none is missing, and plain values parse.
    const env = environmentOf(objects, container);
    const { reads, required } = variablesOf(transcriberSchema);
    for (const name of env.keys()) expect(reads, `the worker reads ${name}`).toContain(name);
    for (const name of required) expect(env.has(name), `the worker is given ${name}`).toBe(true);
    expect(transcriberSchema.safeParse(startEnvironment(objects, container)).error?.issues ?? []).toEqual([]);
    for (const [name, entry] of env) if (isCredential(name)) expect(entry.source, `${name} comes from a Secret`).toBe("secret");

    // The meeting service's storage, the same values; S3 with the reading pair, never egress's upload pair.
    const meetingEnv = environmentOf(objects, mainContainer(objects, "meeting"));
    for (const name of [
      "RECORDING_STORAGE",
      "RECORDING_DIR",
      "RECORDING_S3_ENDPOINT",
      "RECORDING_S3_BUCKET",
      "RECORDING_S3_REGION",
      "RECORDING_S3_FORCE_PATH_STYLE",
      "RECORDING_S3_ACCESS_KEY_ID",
      "RECORDING_S3_SECRET_ACCESS_KEY",
    ])
      expect(env.get(name), name).toEqual(meetingEnv.get(name));
    for (const name of ["RECORDING_S3_UPLOAD_ACCESS_KEY_ID", "RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY", "RECORDING_LINK_SECRET", "LIVEKIT_API_SECRET"])
      expect(env.get(name), `the worker gets no ${name}`).toBeUndefined();
    const volumes = deployment.spec.template.spec.volumes as { name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }[];
    const mounts = (container as Container & { volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }).volumeMounts;
    const meetingVolumes = find(objects, "Deployment", nameOf("meeting")).spec.template.spec.volumes as {
      name: string;
      persistentVolumeClaim?: { claimName: string };
    }[];
    if (env.get("RECORDING_STORAGE")?.value === "filesystem") {
      expect(volumes.find((volume) => volume.name === "recordings")?.persistentVolumeClaim).toEqual({
        claimName: meetingVolumes.find((volume) => volume.name === "recordings")!.persistentVolumeClaim!.claimName,
        readOnly: true,
      });
      expect(mounts.find((mount) => mount.name === "recordings")).toEqual({ name: "recordings", mountPath: env.get("RECORDING_DIR")!.value, readOnly: true });
    } else {
      expect(volumes.filter((volume) => volume.name === "recordings")).toEqual([]);
    }

    // Nothing calls the worker.
    const policy = find(objects, "NetworkPolicy", nameOf("transcriber"));
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(policy.spec.ingress).toEqual([]);
  });

  it("runs LiveKit Egress exactly when recording.enabled: its own image, LiveKit's credentials and Redis, its storage, no caller", () => {
    const deployment = objects.find((object) => object.kind === "Deployment" && object.metadata.name === nameOf("egress"));
    const recording = ["ci/production-values.yaml", "ci/dev-values.yaml", "ci/recording-s3-values.yaml", "ci/local-cluster-values.yaml"] as string[];
    const enabled = recording.includes(valuesFile);
    expect(deployment !== undefined, "an egress Deployment").toBe(enabled);
    if (!deployment) return;
    const pod = podSpecOf(deployment);
    expect(pod.containers).toHaveLength(1);
    const container = pod.containers[0]!;
    expect(container.image).not.toBe(mainContainer(objects, "meeting").image);
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(pod.automountServiceAccountToken).toBe(false);
    // The node's network only where the values ask (the local cluster's LiveKit advertises 127.0.0.1),
    // and then Service names still resolve through the cluster DNS.
    const { hostNetwork, dnsPolicy } = deployment.spec.template.spec as { hostNetwork?: boolean; dnsPolicy?: string };
    expect(hostNetwork ?? false).toBe(valuesFile === "ci/local-cluster-values.yaml");
    if (hostNetwork) expect(dnsPolicy).toBe("ClusterFirstWithHostNet");
    expect(container.resources?.requests?.cpu).toBeDefined();
    expect(container.resources?.limits?.memory).toBeDefined();

    // The same API key and secret as the meeting service, from the same Secret.
    const env = environmentOf(objects, container);
    const meetingEnv = environmentOf(objects, mainContainer(objects, "meeting"));
    for (const name of ["LIVEKIT_API_KEY", "LIVEKIT_API_SECRET"]) expect(env.get(name), name).toEqual(meetingEnv.get(name));
    const config = JSON.parse(env.get("EGRESS_CONFIG_BODY")!.value!) as {
      redis: Record<string, unknown>;
      ws_url: string;
      health_port: number;
      api_secret?: string;
    };
    expect(config.api_secret, "the secret stays in its Secret").toBeUndefined();
    expect(config.redis.address).toMatch(/^[^\s:]+:\d+$/);
    if (valuesFile === "ci/production-values.yaml") {
      // Kubernetes expands $(NAME) only from variables defined before it.
      expect(config.redis.password).toBe("$(EGRESS_REDIS_PASSWORD)");
      expect(env.get("EGRESS_REDIS_PASSWORD")?.source).toBe("secret");
      const order = (container.env ?? []).map((entry) => entry.name);
      expect(order.indexOf("EGRESS_REDIS_PASSWORD")).toBeLessThan(order.indexOf("EGRESS_CONFIG_BODY"));
    } else {
      expect(config.redis.password).toBeUndefined();
    }
    expect(config.ws_url).toMatch(/^wss?:\/\//);
    expect(container.startupProbe?.httpGet?.port).toBe("health");
    expect(container.ports?.find((port) => port.name === "health")?.containerPort).toBe(config.health_port);

    const volumes = deployment.spec.template.spec.volumes as { name: string; persistentVolumeClaim?: { claimName: string } }[];
    const mounts = (container as Container & { volumeMounts: { name: string; mountPath: string }[] }).volumeMounts;
    const meeting = find(objects, "Deployment", nameOf("meeting"));
    const meetingVolumes = meeting.spec.template.spec.volumes as { name: string; persistentVolumeClaim?: { claimName: string } }[];
    const meetingMounts = (mainContainer(objects, "meeting") as Container & { volumeMounts: { name: string; mountPath: string }[] }).volumeMounts;
    expect(meetingEnv.get("RECORDING_LINK_SECRET")?.source).toBe("secret");
    if (valuesFile === "ci/recording-s3-values.yaml") {
      // S3: no claim and no volume anywhere; the meeting service names the bucket and holds both key
      // pairs (each from its Secret): its own, and egress's upload-only one it hands egress with each request.
      expect(objects.filter((object) => object.kind === "PersistentVolumeClaim")).toEqual([]);
      for (const list of [volumes, meetingVolumes, mounts, meetingMounts]) expect(list.filter((entry) => entry.name === "recordings")).toEqual([]);
      expect(meetingEnv.get("RECORDING_STORAGE")?.value).toBe("s3");
      expect(meetingEnv.get("RECORDING_DIR")).toBeUndefined();
      expect(meetingEnv.get("RECORDING_S3_ENDPOINT")?.value).toBe("https://s3.eu-central-1.amazonaws.com");
      expect(meetingEnv.get("RECORDING_S3_BUCKET")?.value).toBe("svc-recordings");
      expect(meetingEnv.get("RECORDING_S3_REGION")?.value).toBe("eu-central-1");
      expect(meetingEnv.get("RECORDING_S3_FORCE_PATH_STYLE")?.value).toBe("false");
      for (const name of ["RECORDING_S3_ACCESS_KEY_ID", "RECORDING_S3_SECRET_ACCESS_KEY"]) {
        expect(meetingEnv.get(name), name).toMatchObject({ source: "secret", secret: { name: "svc-recordings-s3" } });
        expect(env.get(name), `egress gets no ${name}`).toBeUndefined();
      }
      for (const name of ["RECORDING_S3_UPLOAD_ACCESS_KEY_ID", "RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY"]) {
        expect(meetingEnv.get(name), name).toMatchObject({ source: "secret", secret: { name: "svc-recordings-s3-upload" } });
        expect(env.get(name), `egress gets no ${name}`).toBeUndefined();
      }
    } else {
      // Filesystem: the recordings claim, mounted where the values say (the meeting service mounts the same).
      const claim = volumes.find((volume) => volume.name === "recordings")?.persistentVolumeClaim?.claimName;
      expect(mounts.find((mount) => mount.name === "recordings")?.mountPath).toBe("/recordings");
      if (valuesFile === "ci/production-values.yaml" || valuesFile === "ci/local-cluster-values.yaml") expect(claim).toBe("svc-recordings");
      else expect(find(objects, "PersistentVolumeClaim", claim!).spec.resources.requests.storage).toBe("5Gi");
      // The meeting service serves downloads from the same claim at the same path.
      expect(meetingVolumes.find((volume) => volume.name === "recordings")?.persistentVolumeClaim?.claimName).toBe(claim);
      expect(meetingMounts.find((mount) => mount.name === "recordings")?.mountPath).toBe("/recordings");
      expect(meetingEnv.get("RECORDING_STORAGE")?.value).toBe("filesystem");
      expect(meetingEnv.get("RECORDING_DIR")?.value).toBe("/recordings");
    }

    // Nothing calls egress: its policy admits no chart component, only the metrics port.
    const policy = find(objects, "NetworkPolicy", nameOf("egress"));
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    for (const rule of policy.spec.ingress as { from?: { podSelector?: unknown }[]; ports: { port: string }[] }[]) {
      expect(rule.ports).toEqual([{ port: "metrics", protocol: "TCP" }]);
      expect((rule.from ?? []).filter((peer) => peer.podSelector)).toEqual([]);
    }
  });

  it("NetworkPolicies admit exactly the in-chart callers the configuration wires up, on those ports", () => {
    // Calls, as the configuration wires them: a *_URL variable naming a chart Service and port.
    const wired = new Set<string>();
    // The chart's `helm test` pod calls the services too (templates/tests).
    const callers: [string, Container][] = [
      ...componentNames.map((caller): [string, Container] => [caller, mainContainer(objects, caller)]),
      ["test", podSpecOf(find(objects, "Pod", nameOf("test"))).containers[0]!],
    ];
    // A port whose policy admits every source (the gateway's public port) needs no peer.
    const openToAll = (callee: string, targetPort: string) =>
      (find(objects, "NetworkPolicy", nameOf(callee)).spec.ingress as { from?: unknown[]; ports: { port: string }[] }[]).some(
        (rule) => !rule.from && rule.ports.some((port) => port.port === targetPort),
      );
    for (const [caller, container] of callers) {
      for (const [name, entry] of environmentOf(objects, container)) {
        if (!name.endsWith("_URL") || entry.value === undefined) continue;
        const url = new URL(entry.value);
        const callee = componentNames.find((component) => nameOf(component) === url.hostname);
        if (!callee) continue;
        const servicePort = (find(objects, "Service", nameOf(callee)).spec.ports as { port: number; targetPort: string }[]).find(
          (port) => port.port === Number(url.port || (url.protocol === "https:" ? 443 : 80)),
        );
        expect(servicePort, `${caller} ${name}=${entry.value}: the Service has no such port`).toBeDefined();
        if (!openToAll(callee, servicePort!.targetPort)) wired.add(`${caller} -> ${callee}:${servicePort!.targetPort}`);
      }
    }
    expect([...wired].sort()).toEqual(
      [
        "gateway -> identity:grpc",
        "gateway -> identity:oauth",
        // The gateway calls meeting and webhook on their grpc-js ports (decision 0018).
        "gateway -> meeting:grpc-internal",
        "gateway -> webhook:grpc-internal",
        "meeting -> identity:grpc",
        "webhook -> identity:grpc",
        "test -> identity:grpc",
        "test -> meeting:grpc-internal",
        "test -> webhook:grpc-internal",
        // Only where the gateway's policy names its peers (production): it must then admit the test pod.
        ...(openToAll("gateway", "http") ? [] : ["test -> gateway:http"]),
      ].sort(),
    );

    const admitted = new Set<string>();
    for (const callee of componentNames) {
      const policy = find(objects, "NetworkPolicy", nameOf(callee));
      expect(policy.spec.policyTypes).toEqual(["Ingress"]); // egress stays open: webhook calls customer URLs
      for (const rule of policy.spec.ingress as { from?: { podSelector?: { matchLabels: Record<string, string> } }[]; ports: { port: string }[] }[]) {
        for (const peer of rule.from ?? []) {
          const caller = peer.podSelector?.matchLabels["app.kubernetes.io/component"];
          if (!caller) continue; // an operator-configured peer (networkPolicyFrom), outside the chart
          for (const port of rule.ports) admitted.add(`${caller} -> ${callee}:${port.port}`);
        }
      }
    }
    expect([...admitted].sort()).toEqual([...wired].sort());
  });

  it("identity's admin port is admitted by a NetworkPolicy of its own, to operator-configured peers only, never to a chart component", () => {
    type Rule = { from?: { podSelector?: { matchLabels?: Record<string, string> } }[]; ports?: { port: string }[] };
    const identityLabels = find(objects, "Deployment", nameOf("identity")).spec.selector.matchLabels as Record<string, string>;
    const admin = find(objects, "NetworkPolicy", nameOf("identity-admin"));
    expect(admin.spec.podSelector.matchLabels).toEqual(identityLabels);
    expect(admin.spec.policyTypes).toEqual(["Ingress"]);
    for (const rule of admin.spec.ingress as Rule[]) {
      // A rule without peers would admit every source.
      expect(rule.from?.length, "an admin rule names its peers").toBeGreaterThan(0);
      expect(rule.ports).toEqual([{ port: "admin", protocol: "TCP" }]);
      for (const peer of rule.from!)
        expect(peer.podSelector?.matchLabels?.["app.kubernetes.io/component"], "a chart component admitted to the admin port").toBeUndefined();
    }
    // No other policy opens the admin port (policies add up).
    for (const policy of objects.filter((object) => object.kind === "NetworkPolicy" && object !== admin)) {
      for (const rule of (policy.spec.ingress ?? []) as Rule[]) {
        expect(rule.ports, `${policy.metadata.name} without ports admits every port`).toBeDefined();
        expect(
          rule.ports!.map((port) => port.port),
          policy.metadata.name,
        ).not.toContain("admin");
      }
    }
  });

  it("meeting's and webhook's main gRPC port is admitted to their configured internal clients only, never to every source", async () => {
    type Rule = { from?: Record<string, unknown>[]; ports: { port: string }[] };
    const rulesOn = (rendered: K8sObject[], component: string, port: string) =>
      (find(rendered, "NetworkPolicy", nameOf(component)).spec.ingress as Rule[]).filter((rule) => rule.ports.some((entry) => entry.port === port));
    // No chart component calls the main port (the gateway and the test pod call grpc-internal).
    for (const component of ["meeting", "webhook"]) expect(rulesOn(objects, component, "grpc"), component).toEqual([]);
    const peer = { namespaceSelector: { matchLabels: { team: "ops" } } };
    const withClients = await renderChart(valuesFile, [
      "--set",
      "meeting.networkPolicyFrom[0].namespaceSelector.matchLabels.team=ops",
      "--set",
      "webhook.networkPolicyFrom[0].namespaceSelector.matchLabels.team=ops",
    ]);
    for (const component of ["meeting", "webhook"]) {
      expect(rulesOn(withClients, component, "grpc").map((rule) => rule.from)).toEqual([[peer]]);
      expect(rulesOn(withClients, component, "grpc-internal").every((rule) => rule.from?.some((from) => JSON.stringify(from) === JSON.stringify(peer)))).toBe(
        true,
      );
    }
  });

  it("migrates each service's schema in a pre-install/pre-upgrade Job with only the database URL", () => {
    const jobs = objects.filter((object) => object.kind === "Job");
    expect(jobs.map((job) => job.metadata.name).sort()).toEqual(servicesWithMigrations.map((service) => nameOf(`${service}-migrations`)).sort());
    for (const service of servicesWithMigrations) {
      const job = find(objects, "Job", nameOf(`${service}-migrations`));
      expect(job.metadata.annotations?.["helm.sh/hook"]?.split(",").sort()).toEqual(["pre-install", "pre-upgrade"]);
      const [container, ...others] = podSpecOf(job).containers;
      expect(others).toEqual([]);
      expect(container!.command).toEqual(["node", `services/${service}/dist/migrate.js`]);
      expect(existsSync(path.join(root, "services", service, "src/migrate.ts"))).toBe(true);
      const env = environmentOf(objects, container!);
      expect([...env.keys()].sort()).toEqual(["DATABASE_URL", "LOG_LEVEL"]);
      expect(env.get("DATABASE_URL")?.source).toBe("secret");
      expect(container!.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    }
  });
});
