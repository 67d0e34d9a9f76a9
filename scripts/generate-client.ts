// Writes the gateway's OpenAPI document (client/openapi.json) and @svc/client's types generated
// from it (client/src/schema.ts), both from the gateway's code (scripts/client/).
import { writeFileSync } from "node:fs";
import { documentPath, renderClientSchema, renderOpenApiDocument, schemaPath } from "./client/render.ts";

writeFileSync(documentPath, renderOpenApiDocument());
process.stdout.write(`wrote ${documentPath}\n`);
writeFileSync(schemaPath, await renderClientSchema());
process.stdout.write(`wrote ${schemaPath}\n`);
