/** Reading command-line flags: each checked as its `svc.config` key is, with the flag named. */
import * as v from "valibot";
import { wholeNumber } from "../config/schemaParts.ts";
import { portSchema } from "../config/svcConfig.ts";
import { UsageError } from "../config/usageError.ts";

/** The flags every command that reads `svc.config` takes. */
export interface CommonFlags {
  config?: string;
  componentsDir?: string;
}

export function parsePort(value: unknown): number {
  const port = Number(value);
  if (!v.is(portSchema, port)) {
    throw new UsageError(`--port must be an integer from 0 to 65535, not ${String(value)}`);
  }
  return port;
}

const workersSchema = wholeNumber(1);

export function parseRenderWorkers(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const workers = Number(value);
  if (!v.is(workersSchema, workers)) {
    throw new UsageError(
      `--render-workers must be a whole number of at least 1, not ${String(value)}`,
    );
  }
  return workers;
}

export function parseChoice<T extends string>(
  flag: string,
  value: unknown,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!choices.includes(value as T)) {
    throw new UsageError(`${flag} must be ${choices.join(" or ")}, not ${String(value)}`);
  }
  return value as T;
}

/** A repeatable flag's values: none, one, or several. */
export function asList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * Whether `--name` or `--no-name` was typed: cac fills in `true` for a negatable flag that
 * was not given, which must not override the config file.
 */
export function givenBoolean(argv: readonly string[], name: string): boolean | undefined {
  let value: boolean | undefined;
  for (const arg of argv) {
    if (arg === `--${name}`) value = true;
    else if (arg === `--no-${name}`) value = false;
  }
  return value;
}
