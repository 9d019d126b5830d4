import {
  type KnownName,
  type PropsFor,
  type PropsParameters,
  parseComponentName,
} from "@svc/protocol";
import type { Handlers } from "../service/handlerTypes.ts";
import type { IslandOptions } from "../ssr/islandRenderer.ts";

/**
 * Islands for a page's templates and routes: what each bridge hands its routes (Express
 * `res.locals.svc`, Koa `ctx.state.svc`, Hono `c.get("svc")`, Nest's injectable `SvcIslands`),
 * on the bridge's own handler set, so pages and the endpoints share one cache.
 */
export interface SvcIslands {
  /**
   * The island of `name` with `props` (default `{}`): its container, with the server-rendered
   * HTML inside, ready to put in a page as it is. Name and props are checked against
   * `SvcComponents` when `svc types` declared it (see README "Typed props").
   * @throws InvalidComponentNameError, ComponentNotFoundError, InvalidPropsError, RenderError,
   * RenderTimeoutError, BundleError (each an `SvcError` with its `kind`)
   */
  island<P extends object = never, N extends string = string>(
    name: KnownName<N>,
    ...args: PropsParameters<Readonly<PropsFor<P, N>>, [options?: IslandOptions]>
  ): Promise<string>;
}

/** The islands of a handler set (see {@link SvcIslands}). */
export function createIslands(handlers: Handlers): SvcIslands {
  return {
    island(name: string, ...args: unknown[]) {
      const [props = {}, options] = args as [unknown?, IslandOptions?];
      // A promise whatever goes wrong, a bad name included: templates await it.
      try {
        return handlers.renderIsland(parseComponentName(name), props, options);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
