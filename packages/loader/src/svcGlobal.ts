/** `window.svc`: what the loader exposes to the page. */
import type { KnownName, PropsFor, SvcComponentName, SvcProps } from "@svc/protocol";
import type { ComponentModule } from "@svc/runtime";
import type * as React from "react";

export interface SvcLoadOptions {
  /** API base to load from. Default: the script's `data-svc-api`, else `/api`. */
  apiBase?: string;
  /** Content hash to request. */
  hash?: string;
}

/** `window.svc`. */
export interface SvcGlobal {
  readonly version: string;
  /**
   * Renders every `[data-svc-component]` container in `root` (and `root` itself), skipping
   * those already rendered. Default root: the document. Returns the containers found.
   */
  render(root?: ParentNode): Element[];
  /**
   * Re-renders a container with new props and writes them to its `data-svc-props`. Props are
   * checked against the declared components (`SvcComponents`); name the component to check
   * against its props alone: `svc.update<"counter">(el, { step: 2 })`.
   */
  update<N extends SvcComponentName = SvcComponentName>(
    container: Element,
    props: SvcProps<N>,
  ): void;
  /**
   * Loads a component's module (shared cache with the rendered containers). A declared name
   * types its default export; a name typed `string` is let through (see `KnownName`).
   */
  load<P extends object = never, N extends string = string>(
    name: KnownName<N>,
    options?: SvcLoadOptions,
  ): Promise<SvcModule<PropsFor<P, N>>>;
  /** Unmounts a container's React root. */
  unmount(container: Element): void;
  /**
   * Fetches a component again (its source changed) and re-renders it wherever it is shown;
   * other components keep their state. `hash`: its new content hash, when known.
   */
  reload<N extends string>(name: KnownName<N>, options?: { hash?: string }): Promise<void>;
}

/** A component's module namespace as `window.svc.load` gives it: its default export typed. */
export type SvcModule<P> = ComponentModule & { readonly default?: React.ComponentType<P> };

declare global {
  interface Window {
    svc?: SvcGlobal;
  }
}
