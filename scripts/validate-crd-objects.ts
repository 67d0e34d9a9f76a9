// Validates the custom resources the chart renders (Gateway API HTTPRoute; the Prometheus
// Operator's ServiceMonitor, PodMonitor and PrometheusRule) against the OpenAPI schemas of their
// own CustomResourceDefinitions, offline: kubernetes-validate only knows Kubernetes' built-in
// kinds and skips these with a warning. The CRDs come from the projects' Go modules (the Go module
// proxy, cached in Go's module cache like the other Go-built tools), for the oldest version the
// chart supports and a current one. Like `kubernetes-validate --strict`, a field the schema does
// not declare fails (the API server's strict field validation), unless the schema keeps unknown
// fields (x-kubernetes-preserve-unknown-fields). CEL rules (x-kubernetes-validations) are not
// evaluated here: the cluster test applies the chart to a real API server.
//
//   scripts/node scripts/validate-crd-objects.ts RENDERED.yaml
// Prints the kinds it checked; exits 1 on an invalid object or on a kind of these API groups it
// has no schema for. With --crd-files instead, prints the paths of the newest CRDs (the cluster
// test installs them and has the API server itself check the chart with every feature on).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parseAllDocuments } from "yaml";

interface CrdSource {
  module: string;
  versions: string[];
  file: (kind: string) => string;
}
/** The API groups whose kinds this validates, and where their CRDs are in each project's module. */
const sources: Record<string, CrdSource> = {
  "gateway.networking.k8s.io": {
    module: "sigs.k8s.io/gateway-api",
    // v1.0.0 made HTTPRoute v1 (GA); v1.4.1 is a current release.
    versions: ["v1.0.0", "v1.4.1"],
    file: (kind) => `config/crd/standard/gateway.networking.k8s.io_${kind.toLowerCase()}s.yaml`,
  },
  "monitoring.coreos.com": {
    module: "github.com/prometheus-operator/prometheus-operator",
    versions: ["v0.85.0"],
    file: (kind) => `example/prometheus-operator-crd/monitoring.coreos.com_${kind.toLowerCase()}s.yaml`,
  },
};

const cache = process.env.SVC_CACHE ?? path.join(os.homedir(), ".cache/svc");
const goEnv = {
  ...process.env,
  GOPATH: path.join(cache, "go"),
  GOMODCACHE: path.join(cache, "go/pkg/mod"),
  GOFLAGS: "-modcacherw",
  GOWORK: "off",
};

/** The module's directory in Go's module cache (`go mod download`: fetched once, then cached). */
function moduleDir(module: string, version: string): string {
  const out = execFileSync("go", ["mod", "download", "-json", `${module}@${version}`], { env: goEnv, cwd: os.tmpdir(), encoding: "utf8" });
  const { Dir, Error: error } = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!Dir) throw new Error(`go mod download ${module}@${version}: ${error}`);
  return Dir;
}

type Schema = Record<string, unknown>;
/** Declared fields only, as strict field validation does: objects with properties get additionalProperties false. */
function strict(schema: Schema): Schema {
  const copy: Schema = { ...schema };
  if (copy.properties && copy.additionalProperties === undefined && !copy["x-kubernetes-preserve-unknown-fields"]) copy.additionalProperties = false;
  for (const key of ["properties", "patternProperties"] as const) {
    if (copy[key]) copy[key] = Object.fromEntries(Object.entries(copy[key] as Record<string, Schema>).map(([name, child]) => [name, strict(child)]));
  }
  for (const key of ["items", "additionalProperties", "not"] as const) {
    if (copy[key] && typeof copy[key] === "object") copy[key] = strict(copy[key] as Schema);
  }
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as Schema[]).map(strict);
  }
  return copy;
}

/** Go's regular expressions (the CRDs' patterns) allow an inline (?i); JavaScript takes it as a flag. */
const goRegExp = (source: string, flags: string) =>
  source.includes("(?i)") ? new RegExp(source.replaceAll("(?i)", ""), `${flags}i`) : new RegExp(source, flags);
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { regExp: Object.assign(goRegExp, { code: "new RegExp" }) } });
const validators = new Map<string, ValidateFunction>();
function validatorFor(group: string, version: string, kind: string, release: string): ValidateFunction | undefined {
  const source = sources[group]!;
  const key = `${group}/${version}/${kind}@${release}`;
  if (!validators.has(key)) {
    let crd: { spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
    try {
      crd = parseAllDocuments(readFileSync(path.join(moduleDir(source.module, release), source.file(kind)), "utf8"))[0]!.toJS() as typeof crd;
    } catch {
      return undefined;
    }
    const served = crd.spec.versions.find((candidate) => candidate.name === version);
    if (!served) return undefined;
    const schema = strict(served.schema.openAPIV3Schema);
    // metadata is the API server's to check (ObjectMeta), as kubernetes-validate does for built-in kinds.
    (schema.properties as Record<string, Schema>).metadata = { type: "object" };
    validators.set(key, ajv.compile(schema));
  }
  return validators.get(key);
}

if (process.argv[2] === "--crd-files") {
  // The newest CRD files of the kinds the chart renders, for installing them on a real cluster.
  const kinds: Record<string, string[]> = {
    "gateway.networking.k8s.io": ["HTTPRoute"],
    "monitoring.coreos.com": ["ServiceMonitor", "PodMonitor", "PrometheusRule"],
  };
  for (const [group, source] of Object.entries(sources)) {
    const dir = moduleDir(source.module, source.versions.at(-1)!);
    for (const kind of kinds[group]!) console.log(path.join(dir, source.file(kind)));
  }
  process.exit(0);
}
const file = process.argv[2];
if (!file) throw new Error("usage: validate-crd-objects.ts RENDERED.yaml | --crd-files");
const objects = parseAllDocuments(readFileSync(file, "utf8"))
  .map((document) => document.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null)
  .filter((object) => object !== null);

let failed = false;
const checked: string[] = [];
for (const object of objects) {
  const [group, version] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : ["", object.apiVersion];
  const source = sources[group!];
  if (!source) continue;
  for (const release of source.versions) {
    const validate = validatorFor(group!, version!, object.kind, release);
    const label = `${object.kind} ${object.metadata.name} (${object.apiVersion}, CRD of ${source.module}@${release})`;
    if (!validate) {
      console.error(`validate-crd-objects: no schema for ${label}`);
      failed = true;
    } else if (!validate(object)) {
      console.error(`validate-crd-objects: ${label} is invalid:\n${ajv.errorsText(validate.errors, { separator: "\n  " })}`);
      failed = true;
    } else {
      checked.push(`${object.kind}@${release}`);
    }
  }
}
console.log([...new Set(checked)].join(" "));
process.exit(failed ? 1 : 0);
