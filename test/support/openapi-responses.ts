// Every response the integration tests receive from a gateway's REST API is checked against the
// OpenAPI document that gateway serves: the status must be declared for the operation, and a JSON
// body must match the declared schema, with no field the document does not list. The document is
// the contract a client codes against; a field it lacks, or a status it does not mention, fails the
// test that received it.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

interface Contract {
  routes: { matches: RegExp; operations: Record<string, Operation> }[];
  validatorFor(schema: unknown): ValidateFunction;
}

const gatewayBases = new Set<string>();
const contracts = new Map<string, Promise<Contract>>();
export const violations: string[] = [];

/** Called by the test stack: responses from this gateway are checked. */
export const checkResponsesOf = (gatewayUrl: string) => void gatewayBases.add(gatewayUrl);

/**
 * Objects that list their properties admit no others (for checking responses only). A schema
 * combined with `allOf` is closed as a whole (`unevaluatedProperties`, which sees the properties
 * of every member) and its members, and the components they name, are left open.
 */
function closed(schema: unknown, open = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closed(item, open));
  if (schema === null || typeof schema !== "object") return schema;
  const entries = Object.entries(schema).map(([key, value]) => {
    if (key === "examples") return [key, value];
    if (key === "allOf") return [key, (value as unknown[]).map((member) => closed(member, true))];
    return [key, closed(value, key === "properties" ? false : open)];
  });
  const copy: Record<string, unknown> = Object.fromEntries(entries);
  if (copy.allOf && !("unevaluatedProperties" in copy)) copy.unevaluatedProperties = false;
  else if (!open && copy.properties && !("additionalProperties" in copy)) copy.additionalProperties = false;
  return copy;
}

/** Component schemas used as allOf members stay open (their owner is closed instead). */
function openComponents(document: Document): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown, inAllOf: boolean) => {
    if (Array.isArray(node)) return node.forEach((item) => visit(item, inAllOf));
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && inAllOf && typeof value === "string") names.add(value.replace("#/components/schemas/", ""));
      visit(value, key === "allOf" || (inAllOf && key !== "properties"));
    }
  };
  visit(document.components.schemas, false);
  return names;
}

async function contractOf(base: string, fetchImpl: typeof fetch): Promise<Contract> {
  const document = (await (await fetchImpl(`${base}/api/v1/openapi.json`)).json()) as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const open = openComponents(document);
  const schemas = Object.fromEntries(Object.entries(document.components.schemas).map(([name, schema]) => [name, closed(schema, open.has(name))]));
  ajv.addSchema({ $id: "openapi", components: { ...document.components, schemas } });
  const compiled = new Map<string, ValidateFunction>();
  return {
    routes: Object.entries(document.paths).map(([template, operations]) => ({
      matches: new RegExp(`^${template.replace(/\{[^/}]+\}/g, "[^/]+")}/?$`),
      operations,
    })),
    validatorFor(schema) {
      const key = JSON.stringify(schema);
      let validate = compiled.get(key);
      if (!validate) {
        // Component references resolve inside the registered document.
        const rewritten = JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/')) as object;
        validate = ajv.compile(closed(rewritten) as object);
        compiled.set(key, validate);
      }
      return validate;
    },
  };
}

/** Checks one response; appends what is wrong to `violations`. */
export async function checkResponse(method: string, url: URL, response: Response, fetchImpl: typeof fetch): Promise<void> {
  const base = [...gatewayBases].find((candidate) => url.href.startsWith(`${candidate}/api/v1/`));
  if (!base) return;
  const path = url.pathname.slice("/api/v1".length);
  if (path === "/openapi.json" || path.startsWith("/oauth/")) return; // the document itself; the OAuth server answers per RFC 6749, not this document
  let contract = contracts.get(base);
  if (!contract) contracts.set(base, (contract = contractOf(base, fetchImpl)));
  const { routes, validatorFor } = await contract;
  const route = routes.find((candidate) => candidate.matches.test(path));
  const where = `${method} ${url.pathname} → ${response.status}`;
  if (!route) {
    if (response.status !== 404 && response.status !== 405) violations.push(`${where}: the path is not in the OpenAPI document`);
    return;
  }
  const operation = route.operations[method.toLowerCase()];
  if (!operation) {
    // 405 for an undeclared method, and OPTIONS (204 with Allow), are the gateway's answers for every declared path.
    const methodAnswer = response.status === 405 || (method === "OPTIONS" && response.status === 204);
    if (!methodAnswer) violations.push(`${where}: the method is not in the OpenAPI document`);
    return;
  }
  const status = String(response.status);
  const declared = operation.responses?.[status] ?? operation.responses?.[`${status[0]}XX`] ?? operation.responses?.default;
  if (!declared) {
    violations.push(`${where}: status not declared (declared: ${Object.keys(operation.responses ?? {}).join(", ")})`);
    return;
  }
  const schema = declared.content?.["application/json"]?.schema;
  if (!schema || !(response.headers.get("content-type") ?? "").includes("application/json")) return;
  const body: unknown = await response.clone().json();
  const validate = validatorFor(schema);
  if (!validate(body)) {
    violations.push(
      `${where}: body does not match the document: ${(validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}${error.params && "additionalProperty" in error.params ? ` (${String(error.params.additionalProperty)})` : ""}`).join("; ")}`,
    );
  }
}
