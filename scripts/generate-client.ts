// Writes @svc/client's types (client/src/schema.ts) from the gateway's OpenAPI document (scripts/client/).
import { writeFileSync } from "node:fs";
import { renderClientSchema, schemaPath } from "./client/render.ts";

writeFileSync(schemaPath, await renderClientSchema());
process.stdout.write(`wrote ${schemaPath}\n`);
