// Renders docs/configuration.md from the code: each process's configuration schema (zod) gives the
// variables, their defaults and what they accept; the JSDoc on each variable in the schema's source
// gives its meaning. Like node-oidc-provider's generated reference, nothing here is written by hand
// but the page's opening, so the reference cannot fall behind a new or changed variable.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { z } from "zod";
import { configSchema as gatewaySchema } from "../../gateway/src/config.ts";
import { cliConfigSchema } from "../../services/identity/src/cli/config.ts";
import { configSchema as identitySchema } from "../../services/identity/src/config.ts";
import { configSchema as meetingSchema } from "../../services/meeting/src/config.ts";
import { baseEnvSchema } from "../../services/platform/src/config.ts";
import { kafkaSecurityEnv } from "../../services/platform/src/events/kafka-security.ts";
import { workerConfigSchema as transcriberSchema } from "../../services/meeting/src/transcription/worker-config.ts";
import { configSchema as webhookSchema } from "../../services/webhook/src/config.ts";

const root = path.resolve(import.meta.dirname, "../..");

/** Where each schema's variables are declared: its own file first, then the platform's shared ones. */
const platformSources = ["services/platform/src/config.ts", "services/platform/src/events/kafka-security.ts"];

interface Process {
  name: string;
  title: string;
  schema: z.ZodType;
  sources: string[];
}

const processes: Process[] = [
  { name: "gateway", title: "Gateway", schema: gatewaySchema, sources: ["gateway/src/config.ts", ...platformSources] },
  { name: "identity", title: "Identity", schema: identitySchema, sources: ["services/identity/src/config.ts", ...platformSources] },
  { name: "meeting", title: "Meeting", schema: meetingSchema, sources: ["services/meeting/src/config.ts", ...platformSources] },
  { name: "webhook", title: "Webhook", schema: webhookSchema, sources: ["services/webhook/src/config.ts", ...platformSources] },
  {
    name: "transcriber",
    title: "Transcription worker (`services/meeting/src/transcription/worker-main.ts`)",
    schema: transcriberSchema,
    sources: ["services/meeting/src/transcription/worker-config.ts", "services/meeting/src/config.ts", ...platformSources],
  },
  { name: "cli", title: "Admin CLI (`npm run cli`)", schema: cliConfigSchema, sources: ["services/identity/src/cli/config.ts", ...platformSources] },
];

/** Variables several processes read with one shared schema: listed once, before each process's own. */
const sharedGroups: { title: string; intro: string; processes: string[]; fields: Record<string, z.ZodType> }[] = [
  {
    title: "Every service (identity, meeting, webhook)",
    intro: "Read by each of the three services with the same rules (the platform's `baseEnvSchema`).",
    processes: ["identity", "meeting", "webhook"],
    fields: baseEnvSchema.shape,
  },
  {
    title: "Kafka security (meeting, webhook)",
    intro:
      "TLS and SASL towards managed Kafka brokers, checked at start; see [Kafka security](operations.md#operations-delivery-fairness-retention-kafka-security).",
    processes: ["meeting", "webhook"],
    fields: kafkaSecurityEnv,
  },
];

/** The generator's command, named in the page and in the staleness test's message. */
export const generateCommand = "npm run generate:config-reference";
export const referencePath = path.join(root, "docs/configuration.md");

// Zod 4 keeps a schema's definition under `_zod.def`; these are the few kinds a variable is made of.
interface Definition {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  defaultValue?: unknown;
  options?: unknown[];
  entries?: Record<string, unknown>;
  shape?: Record<string, z.ZodType>;
}
const definitionOf = (schema: z.ZodType): Definition => (schema as unknown as { _zod: { def: Definition } })._zod.def;

/** The object schema under a configuration schema's refinements and transforms. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  let current = schema;
  for (;;) {
    const definition = definitionOf(current);
    if (definition.type === "object" && definition.shape) return definition.shape;
    if (definition.type === "pipe" && definition.in) current = definition.in;
    else throw new Error(`not an object schema (found ${definition.type})`);
  }
}

/** What an unset variable becomes, as written in the environment; undefined when it stays unset. */
function defaultOf(schema: z.ZodType): { value: string } | undefined {
  const definition = definitionOf(schema);
  if (definition.type === "default") return { value: String(definition.defaultValue) };
  if (definition.type === "pipe" && definition.in) return defaultOf(definition.in);
  if (definition.type === "optional" && definition.innerType) return defaultOf(definition.innerType);
  return undefined;
}

/** The innermost schema that checks the value itself (under defaults, optionals and transforms). */
function valueSchemaOf(schema: z.ZodType): z.ZodType {
  const definition = definitionOf(schema);
  if ((definition.type === "default" || definition.type === "optional") && definition.innerType) return valueSchemaOf(definition.innerType);
  if (definition.type === "pipe" && definition.in) return valueSchemaOf(definition.in);
  return schema;
}

/** What the variable accepts, in words. */
function acceptsOf(schema: z.ZodType): string {
  const value = valueSchemaOf(schema);
  const definition = definitionOf(value);
  if (definition.type === "enum") {
    const options = Object.values(definition.entries ?? {}).map(String);
    if (options.length === 4 && ["true", "false", "1", "0"].every((option) => options.includes(option))) return "`true` or `false`";
    return options.map((option) => `\`${option}\``).join(", ");
  }
  if (definition.type === "number") {
    const number = value as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
    const kind = number.isInt ? "whole number" : "number";
    const finite = (bound: number | null) => bound !== null && Number.isFinite(bound) && Math.abs(bound) < Number.MAX_SAFE_INTEGER;
    if (finite(number.minValue) && finite(number.maxValue)) return `${kind}, ${number.minValue}-${number.maxValue}`;
    if (finite(number.minValue)) return `${kind}, at least ${number.minValue}`;
    return kind;
  }
  return "text";
}

/** Each variable's JSDoc in a source file, by name (property assignments in object literals). */
function jsDocsOf(file: string): Map<string, string> {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const docs = new Map<string, string>();
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && /^[A-Z][A-Z0-9_]*$/.test(node.name.text)) {
      const comment = ts
        .getJSDocCommentsAndTags(node)
        .filter(ts.isJSDoc)
        .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
      if (comment !== "" && !docs.has(node.name.text)) docs.set(node.name.text, comment);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return docs;
}

interface Variable {
  name: string;
  default: string;
  accepts: string;
  meaning: string;
}

/** The variables of one schema, in declaration order, each with its meaning from the JSDoc. */
function variablesOf(schema: z.ZodType, sources: string[], only?: (name: string, field: z.ZodType) => boolean): Variable[] {
  const docs = sources.map(jsDocsOf);
  const undocumented: string[] = [];
  const variables = Object.entries(shapeOf(schema))
    .filter(([name, field]) => only?.(name, field) ?? true)
    .map(([name, field]) => {
      const meaning = docs.map((byName) => byName.get(name)).find((doc) => doc !== undefined);
      if (meaning === undefined) undocumented.push(name);
      const fallback = defaultOf(field);
      return {
        name,
        default:
          fallback === undefined ? (field.safeParse(undefined).success ? "unset" : "**required**") : fallback.value === "" ? "empty" : `\`${fallback.value}\``,
        accepts: acceptsOf(field),
        meaning: meaning ?? "",
      };
    });
  if (undocumented.length > 0) {
    throw new Error(`no JSDoc for ${undocumented.join(", ")} in ${sources[0]} (or the platform's config): say what each variable means`);
  }
  return variables;
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|");

function table(variables: Variable[]): string[] {
  return [
    "| Variable | Default | Accepts | Meaning |",
    "|---|---|---|---|",
    ...variables.map((variable) => `| \`${variable.name}\` | ${variable.default} | ${variable.accepts} | ${escapeCell(variable.meaning)} |`),
  ];
}

/** The shared group a process's variable belongs to: the process is in it and uses the group's own schema. */
function groupOf(processName: string, name: string, field: z.ZodType) {
  return sharedGroups.find((group) => group.processes.includes(processName) && group.fields[name] === field);
}

export function renderConfigurationReference(): string {
  const lines = [
    "# Configuration",
    "",
    `<!-- Generated by \`${generateCommand}\` (scripts/config-reference/) from each process's configuration`,
    "     schema and the JSDoc on its variables. Do not edit by hand: change the schema or its comment. -->",
    "",
    "Environment variables only, validated at start: a bad value stops the process with one line naming",
    "the variable (exit code 78). Development defaults print a warning, and are refused (the process",
    "stops, naming each variable) with `NODE_ENV=production` or when `HOST` is not a loopback address",
    "(see [Development defaults](operations.md#security-hardening-sign-in-rate-limits-cache-integrity-oauth)).",
    "",
    "This page is generated from the code: each process's `configSchema` (`src/config.ts`) gives the",
    "variables, their defaults and what they accept, and the comment on each variable its meaning.",
    "Tracing is configured with the standard `OTEL_*` variables, read by the OpenTelemetry SDK",
    "([Tracing and logs](operations.md#tracing-and-logs)); the Helm chart's values are in",
    "[deploying.md](deploying.md).",
    "",
  ];
  for (const group of sharedGroups) {
    const first = processes.find((each) => each.name === group.processes[0])!;
    const variables = variablesOf(first.schema, first.sources, (name, field) => groupOf(first.name, name, field) === group);
    lines.push(`## ${group.title}`, "", group.intro, "", ...table(variables), "");
  }
  for (const process of processes) {
    const own = variablesOf(process.schema, process.sources, (name, field) => groupOf(process.name, name, field) === undefined);
    lines.push(`## ${process.title}`, "", ...table(own), "");
  }
  lines.pop();
  return `${lines.join("\n")}\n`;
}
