/**
 * The server bundles evaluated, by version and files root: each evaluated once, only the
 * newest version of each component kept.
 */
import { type EvaluatedBundle, evaluateServerBundle, type SharedModules } from "./serverModule.ts";

/** A component's version, evaluated for one API base. */
export interface Evaluated {
  readonly serverHash: string;
  /** The browser bundle's hash, which the island names. */
  hash: string;
  readonly bundle: EvaluatedBundle;
  /**
   * Rendering this version loaded another component (`useComponent`) last time: it suspends,
   * so it goes to `prerender` straight away.
   */
  suspends: boolean;
  /**
   * Whether this version renders alone, without svc's tree around it: unknown until tried,
   * false once rendering it alone failed (it uses `useComponent`, `useSvc`, or suspends).
   */
  bare: boolean | undefined;
  /**
   * Whether this version may be rendered alone in a batch with others (see
   * {@link renderBatch}): unknown until rendered alone; true while every render alone gave
   * only its HTML — no resource hints, no goober rules, no `useId`; false for good after one
   * that did not.
   */
  batchable: boolean | undefined;
}

/**
 * The versions evaluated, by name and files root (asset URLs differ per root): only the
 * newest version of each component, so a replaced one can be collected.
 */
export class Evaluations {
  readonly #byName = new Map<string, { serverHash: string; byBase: Map<string, Evaluated> }>();

  /**
   * `name`'s version `serverHash` evaluated for `filesRoot`; `code` gives its code when it has
   * not been evaluated for that files root yet.
   */
  get(
    shared: SharedModules,
    name: string,
    serverHash: string,
    hash: string,
    filesRoot: string,
    code: () => string,
  ): Evaluated {
    let versions = this.#byName.get(name);
    if (versions?.serverHash !== serverHash) {
      // Older versions (and other API bases' copies of them) go, so memory stays bounded.
      versions = { serverHash, byBase: new Map() };
      this.#byName.set(name, versions);
    }
    const known = versions.byBase.get(filesRoot);
    if (known !== undefined) {
      known.hash = hash;
      return known;
    }
    const bundle = evaluateServerBundle(code(), name, serverHash, shared, assetUrlOf(filesRoot));
    const fresh: Evaluated = {
      serverHash,
      hash,
      bundle,
      suspends: false,
      bare: undefined,
      batchable: undefined,
    };
    versions.byBase.set(filesRoot, fresh);
    return fresh;
  }
}

/**
 * The URL of a file a component imports (`./assets/logo-24WHYHIF.png`) as its browser bundle
 * makes it when loaded from `filesRoot`: a path below a path, the full URL below a full URL.
 */
function assetUrlOf(filesRoot: string): (path: string) => string {
  const bundles = `${filesRoot}/bundles/`;
  if (/^[a-z][a-z\d+.-]*:/i.test(filesRoot)) return (path) => new URL(path, bundles).href;
  const root = bundles.startsWith("/") ? bundles : `/${bundles}`;
  return (path) => new URL(path, `file://${root}`).pathname;
}
