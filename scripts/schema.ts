/** `bun run schema`: regenerates the committed JSON Schemas in schema/ and the state's validator from the zod schemas. */
import { join } from "node:path";
import { CHECKER_FILE, checkerText, SCHEMA_FILES, SCHEMA_KINDS, schemaText } from "../src/setup/json-schema.ts";

const root = join(import.meta.dir, "..");
for (const kind of SCHEMA_KINDS) {
  await Bun.write(join(root, SCHEMA_FILES[kind]), schemaText(kind));
  console.log(`wrote ${SCHEMA_FILES[kind]}`);
}
await Bun.write(join(root, CHECKER_FILE), checkerText());
console.log(`wrote ${CHECKER_FILE}`);
