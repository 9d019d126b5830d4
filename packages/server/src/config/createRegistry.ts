import { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Logger } from "../logger.ts";
import type { ResolvedConfig } from "./resolveConfig.ts";

/** A registry holding every source of `config`. */
export function createRegistry(config: ResolvedConfig, logger?: Logger): ComponentRegistry {
  const registry = new ComponentRegistry(undefined, { logger });
  for (const source of config.sources) registry.addSource(source.dir, { prefix: source.prefix });
  return registry;
}
