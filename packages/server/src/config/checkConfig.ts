import * as v from "valibot";
import { KEY, PARENT } from "./schemaParts.ts";
import { type SvcConfig, svcConfigSchema } from "./svcConfig.ts";
import { UsageError } from "./usageError.ts";

type Issue = v.InferIssue<typeof svcConfigSchema>;

/**
 * Checks a config value against the schema, so a typo fails at start with the key named.
 * @throws UsageError `<file>: <problem>`, the problem as the schema words it for the key.
 */
export function checkConfig(value: unknown, file: string): SvcConfig {
  const result = v.safeParse(svcConfigSchema, value);
  if (result.success) return result.output;
  throw new UsageError(`${file}: ${describeIssue(firstIssue(result.issues))}`);
}

/**
 * The issue to report of several: an unknown key before anything else (the shallowest first),
 * since a misspelt key is the likeliest cause; else the first in the schema's order.
 */
function firstIssue(issues: readonly [Issue, ...Issue[]]): Issue {
  const unknownKeys = issues.filter(isUnknownKey);
  const depth = (issue: Issue) => issue.path?.length ?? 0;
  return unknownKeys.sort((a, b) => depth(a) - depth(b))[0] ?? issues[0];
}

function isUnknownKey(issue: Issue): boolean {
  return issue.type === "strict_object" && issue.expected === "never";
}

/** The issue's message with the key's path in place of its placeholders. */
function describeIssue(issue: Issue): string {
  const path = issue.path ?? [];
  const parent = keyPath(path.slice(0, -1));
  return issue.message
    .replaceAll(KEY, keyPath(path))
    .replaceAll(PARENT, parent === "" ? "" : `${parent}.`);
}

/** `serve.port`, `sources[0].prefix`: the path as it would be written in the config. */
function keyPath(path: readonly v.IssuePathItem[]): string {
  let written = "";
  for (const item of path) {
    if (item.type === "array") written += `[${String(item.key)}]`;
    else written += written === "" ? String(item.key) : `.${String(item.key)}`;
  }
  return written;
}
