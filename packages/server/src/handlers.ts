import { BundleCache } from "./bundleCache.ts";
import { type BundleOptions, type Bundler, esbuildBundler } from "./bundler.ts";
import type { Component, ComponentRegistry } from "./componentRegistry.ts";
import { ComponentNotFoundError, InvalidComponentNameError } from "./errors.ts";
import { consoleLogger, type Logger } from "./logger.ts";
import { buildMetadata, type ComponentMetadata, SchemaReader } from "./metadata.ts";
import { isValidName } from "./names.ts";

export interface HandlerOptions {
  /** Bundles components on request. Default: esbuild, in-process. */
  bundler?: Bundler;
  /** Options for live bundles. Default: not minified, inline source maps, development. */
  bundleOptions?: BundleOptions;
  /** Upper bound on cached bundle bytes (LRU). Default: 256 MiB. */
  cacheMaxBytes?: number;
  /**
   * Re-scan the registry when a listing is asked for or an unknown name is requested, so
   * components added or deleted on disk are noticed without a restart. Default: true.
   */
  autoRefresh?: boolean;
  logger?: Logger;
}

/** A listing entry. */
export interface BundleListEntry {
  name: string;
}

/** One bundle as the bundle endpoint serves it. */
export interface BundleResult {
  name: string;
  code: Uint8Array;
  hash: string;
}

/**
 * The one handler set every transport (fetch, node:http, each framework bridge) wraps.
 * Methods resolve with data or reject with an `SvcError`.
 */
export interface Handlers {
  listBundles(): Promise<BundleListEntry[]>;
  getBundle(name: string): Promise<BundleResult>;
  getMetadata(name: string): Promise<ComponentMetadata>;
  readonly registry: ComponentRegistry;
  readonly logger: Logger;
}

export function createHandlers(
  registry: ComponentRegistry,
  options: HandlerOptions = {},
): Handlers {
  const logger = options.logger ?? consoleLogger;
  const autoRefresh = options.autoRefresh ?? true;
  const cache = new BundleCache(options.bundler ?? esbuildBundler, {
    maxBytes: options.cacheMaxBytes,
    bundleOptions: options.bundleOptions,
  });
  const schemas = new SchemaReader();

  function lookup(name: string): Component {
    if (!isValidName(name)) throw new InvalidComponentNameError(name);
    let component = registry.get(name);
    if (component === undefined && autoRefresh) {
      registry.refresh();
      component = registry.get(name);
    }
    if (component === undefined) throw new ComponentNotFoundError(name);
    return component;
  }

  async function bundleOf(name: string): Promise<BundleResult> {
    const component = lookup(name);
    try {
      return await cache.get(component);
    } catch (error) {
      // The component may have been deleted since discovery: answer 404, not a bundle error.
      if (autoRefresh) {
        registry.refresh();
        if (registry.get(name) === undefined) throw new ComponentNotFoundError(name);
      }
      throw error;
    }
  }

  return {
    registry,
    logger,
    async listBundles() {
      if (autoRefresh) registry.refresh();
      return registry.list().map((c) => ({ name: c.name }));
    },
    getBundle: bundleOf,
    async getMetadata(name) {
      const component = lookup(name);
      const schema = schemas.read(component);
      const { hash } = await bundleOf(name);
      return buildMetadata(component.name, schema, hash);
    },
  };
}

/** Accepts either a registry (a handler set is made for it) or a ready handler set. */
export function resolveHandlers(
  source: ComponentRegistry | Handlers,
  options: HandlerOptions = {},
): Handlers {
  return isHandlers(source) ? source : createHandlers(source, options);
}

function isHandlers(value: ComponentRegistry | Handlers): value is Handlers {
  return typeof (value as Handlers).getBundle === "function";
}
