// Writes docs/configuration.md from the processes' configuration schemas (scripts/config-reference/).
import { writeFileSync } from "node:fs";
import { referencePath, renderConfigurationReference } from "./config-reference/render.ts";

writeFileSync(referencePath, renderConfigurationReference());
process.stdout.write(`wrote ${referencePath}\n`);
