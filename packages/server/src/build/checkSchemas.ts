import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Component } from "../components/componentRegistry.ts";
import { parseSchema } from "../components/metadata.ts";
import { InvalidSchemaError } from "../errors.ts";
import type { BuildFailure } from "./buildErrors.ts";

/** The name every component's `schema.json` has. */
const SCHEMA_FILE = "schema.json";

/**
 * Every `schema.json` that cannot describe a component's props: what the server's reader
 * refuses (`parseSchema`: not JSON, not an object, a `$ref` leaving the file, no JSON Schema),
 * as `svc serve` refuses it.
 */
export function checkSchemas(components: readonly Component[]): BuildFailure[] {
  const failures: BuildFailure[] = [];
  for (const component of components) {
    let text: string;
    try {
      text = readFileSync(join(component.dir, SCHEMA_FILE), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "EISDIR") continue; // no schema: allowed
      failures.push({
        component: component.name,
        file: SCHEMA_FILE,
        text: `cannot be read (${code})`,
      });
      continue;
    }
    try {
      parseSchema(component.name, SCHEMA_FILE, text);
    } catch (error) {
      if (!(error instanceof InvalidSchemaError)) throw error;
      const problem = error.message.slice(`${SCHEMA_FILE}: `.length);
      // Invalid JSON says where: "… in JSON at position 41 (line 3 column 12)".
      const at = /\(line (\d+) column (\d+)\)$/.exec(problem);
      failures.push({
        component: component.name,
        file: SCHEMA_FILE,
        ...(at === null ? {} : { line: Number(at[1]), column: Number(at[2]) }),
        text: at === null ? problem : problem.slice(0, at.index).trimEnd(),
      });
    }
  }
  return failures;
}
