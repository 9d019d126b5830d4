import type { ComponentName } from "@svc/protocol";
import { type Evaluated, Evaluations } from "./evaluations.ts";
import { loadPeers, type Peers } from "./peers.ts";
import type {
  IslandSources,
  PropsValidator,
  RenderEngine,
  Rendered,
  RenderJob,
  ServerBundle,
} from "./renderEngine.ts";
import { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";
import {
  failureOf,
  mayRenderAlone,
  Refused,
  renderAlone,
  renderBatch,
  renderTree,
  type TreeRendered,
} from "./renderTree.ts";

export interface InProcessRendererOptions {
  /** How long a render may wait (on a nested component, a promise) before `RenderTimeout`. */
  timeoutMs: number;
  /**
   * Told which render's code runs synchronously from now on (its job's `id`; -1 for a batch
   * of several; 0 when none does), so that a thread watching this one can tell which render
   * it is stuck in (see `renderPool.ts`). Default: nobody is told.
   */
  running?: (id: number) => void;
}

/** A render alone waiting for the batch it joined (see `InProcessRenderer#render`). */
interface Batched {
  own: Evaluated;
  job: RenderJob;
  resolve(rendered: Rendered): void;
  reject(error: unknown): void;
}

/** At most this many renders go into one batch. */
const MAX_BATCH = 64;

const decoder = new TextDecoder();

/**
 * Renders islands in the server's own thread (the default), as Vite's SSR, Astro and Next do:
 * each server bundle is evaluated once per version as a function of its own (see
 * `serverModule.ts`), with the process's one React, loaded once and shared by every handler
 * set. Only the newest version of each component is kept, and nothing else holds on to an old
 * one, so edits do not accumulate (`npm run soak:ssr`).
 *
 * Islands asked for together — in one burst of synchronous calls, as `Promise.all` of a
 * page's islands makes them — render in one `renderToString` (see `renderBatch`): the first at
 * once, the others at the end of the burst. React's set-up and flush of a render, about
 * four-tenths of a small card's render, is then paid once for the batch, not once each.
 *
 * A render that waits (on a nested component, on a promise of its own) fails with
 * `RenderTimeout` once its time runs out, and is aborted. A render that never returns (a
 * synchronous loop) cannot be interrupted in this thread — V8's per-call time limit
 * (`vm`'s `timeout`) would cost about 250 µs a render — so it blocks the server: who wants that
 * protection renders in a worker (`renderIsolation: "worker"`).
 */
export class InProcessRenderer implements RenderEngine {
  readonly #sources: IslandSources;
  readonly #timeoutMs: number;
  readonly #running: (id: number) => void;
  readonly #evaluations = new Evaluations();
  /**
   * What a render of the component alone gives besides its HTML, per bundle version (the
   * handler set's own object while unchanged): the same for every such render.
   */
  readonly #alone = new WeakMap<ServerBundle, Pick<Rendered, "loaded" | "bundles">>();
  #peers: Peers | undefined;
  /** A render ran in this burst of synchronous calls: the ones after it may be batched. */
  #burst = false;
  /** Renders waiting for the end of the burst, to be rendered in one batch. */
  #batch: Batched[] = [];
  /** How many batches of more than one render were rendered (for tests). */
  batches = 0;

  constructor(sources: IslandSources, options: InProcessRendererOptions) {
    this.#sources = sources;
    this.#timeoutMs = options.timeoutMs;
    this.#running = options.running ?? (() => {});
  }

  prepare(name: ComponentName): PropsValidator | Promise<PropsValidator> {
    if (this.#peers !== undefined) return this.#peers.svc.validateProps;
    return loadPeers().then(
      (peers) => {
        this.#peers = peers;
        return peers.svc.validateProps;
      },
      (error: unknown) => {
        // The one line that says what to install (or whatever else failed, as it is).
        throw /needs .*, which is not installed/.test((error as Error)?.message ?? "")
          ? new RenderSetupError(name, (error as Error).message, error)
          : error;
      },
    );
  }

  /**
   * The island's HTML. A render that waits for nothing (the warm case: peers loaded, nothing
   * nested to load, nothing suspending) gives its result itself, not a promise.
   */
  render(job: RenderJob): Rendered | Promise<Rendered> {
    const peers = this.#peers;
    if (peers === undefined) return loadPeers().then((loaded) => this.#render(loaded, job));
    return this.#render(peers, job);
  }

  #render(peers: Peers, job: RenderJob): Rendered | Promise<Rendered> {
    this.#running(job.id ?? 0);
    try {
      return this.#renderNow(peers, job);
    } finally {
      this.#running(0);
    }
  }

  #renderNow(peers: Peers, job: RenderJob): Rendered | Promise<Rendered> {
    const { name, own: bundle } = job;
    let own: Evaluated;
    try {
      own = this.#evaluate(peers, name, bundle, job.filesRoot);
    } catch (error) {
      throw renderFailure(error, new Map());
    }
    // The warm case, first: the component alone, nothing but its HTML to build.
    if (mayRenderAlone(own, job.metadata)) {
      // Islands asked for together (`Promise.all` of a page's cards): the first renders now,
      // the others wait for the end of this burst of calls and render in one batch.
      if (this.#burst && own.batchable === true) return this.#join(peers, own, job);
      this.#startBurst();
      return this.#renderAlone(peers, own, job);
    }
    return this.#renderTree(peers, job, own, false);
  }

  #renderAlone(peers: Peers, own: Evaluated, job: RenderJob): Rendered | Promise<Rendered> {
    const alone = renderAlone(peers, own, job.props);
    if (alone === undefined) return this.#renderTree(peers, job, own, true);
    return this.#rendered(job, alone.html, alone.styles);
  }

  /** The result of `job`, rendered alone: `html` and `styles`. */
  #rendered(job: RenderJob, html: string, styles: string): Rendered {
    const { name, own: bundle } = job;
    let only = this.#alone.get(bundle);
    if (only === undefined) {
      only = { loaded: { [name]: bundle.hash }, bundles: new Map().set(name, bundle) };
      this.#alone.set(bundle, only);
    }
    return { html, styles, loaded: only.loaded, bundles: only.bundles };
  }

  /** Marks a burst of synchronous calls, which ends with the current task's microtasks. */
  #startBurst(): void {
    if (this.#burst) return;
    this.#burst = true;
    queueMicrotask(this.#endBurst);
  }

  readonly #endBurst = () => {
    this.#burst = false;
  };

  /** `job` rendered in the batch of this burst, once the burst is over. */
  #join(peers: Peers, own: Evaluated, job: RenderJob): Promise<Rendered> {
    return new Promise<Rendered>((resolve, reject) => {
      if (this.#batch.length === 0) queueMicrotask(() => this.#flush(peers));
      this.#batch.push({ own, job, resolve, reject });
    });
  }

  /**
   * Renders the burst's batch: in groups of {@link MAX_BATCH}, one `renderToString` each; a
   * group that does not render as each would alone is rendered one by one, as would a lone one.
   */
  #flush(peers: Peers): void {
    const waiting = this.#batch;
    this.#batch = [];
    for (let start = 0; start < waiting.length; start += MAX_BATCH) {
      const group = waiting.slice(start, start + MAX_BATCH);
      this.#running(group.length > 1 ? -1 : (group[0]?.job.id ?? 0));
      let parts: string[] | undefined;
      try {
        parts =
          group.length > 1
            ? renderBatch(
                peers,
                group.map(({ own, job }) => ({ own, props: job.props })),
              )
            : undefined;
      } finally {
        this.#running(0);
      }
      if (parts !== undefined) this.batches++;
      group.forEach((item, i) => {
        const part = parts?.[i];
        if (part !== undefined) {
          item.resolve(this.#rendered(item.job, part, ""));
          return;
        }
        this.#running(item.job.id ?? 0);
        try {
          const rendered = this.#renderAlone(peers, item.own, item.job);
          if (rendered instanceof Promise) rendered.then(item.resolve, item.reject);
          else item.resolve(rendered);
        } catch (error) {
          item.reject(error);
        } finally {
          this.#running(0);
        }
      });
    }
  }

  /** The island's tree, `renderTree`'s way, its time limit kept when it waits. */
  #renderTree(
    peers: Peers,
    job: RenderJob,
    own: Evaluated,
    triedAlone: boolean,
  ): Rendered | Promise<Rendered> {
    const { name, own: bundle, filesRoot } = job;
    const bundles = new Map<string, ServerBundle>().set(name, bundle);
    let timer: NodeJS.Timeout | undefined;
    let expired: Promise<never> | undefined;
    let loaded: ReadonlyMap<string, Evaluated> = new Map<string, Evaluated>().set(name, own);
    const failed = (error: unknown): never => {
      throw renderFailure(error, loaded);
    };
    const done = (rendered: TreeRendered): Rendered => {
      loaded = rendered.loaded;
      const hashes: Record<string, string> = {};
      rendered.loaded.forEach(({ hash }, component) => {
        hashes[component] = hash;
      });
      return { html: rendered.html, styles: rendered.styles, loaded: hashes, bundles };
    };
    let rendering: TreeRendered | Promise<TreeRendered>;
    try {
      rendering = renderTree(peers, {
        name,
        props: job.props,
        own,
        metadata: job.metadata,
        filesRoot,
        triedAlone,
        load: async (other) => {
          let found: ServerBundle;
          try {
            found = await this.#sources.serverBundle(other as ComponentName);
          } catch (error) {
            throw new Refused((error as Error)?.message ?? String(error), error);
          }
          bundles.set(other, found);
          this.#running(job.id ?? 0);
          try {
            return this.#evaluate(peers, other, found, filesRoot);
          } finally {
            this.#running(0);
          }
        },
        loadMetadata: (other) =>
          this.#sources.metadata(other as ComponentName).catch((error: unknown) => {
            throw new Refused((error as Error)?.message ?? String(error), error);
          }),
        // Only a render that waits keeps time: the others are done before a timer could fire.
        waits: () => {
          const controller = new AbortController();
          expired = new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              reject(new RenderTimeoutError(name, this.#timeoutMs));
              controller.abort();
            }, this.#timeoutMs);
          });
          return controller.signal;
        },
      });
      if (!(rendering instanceof Promise)) return done(rendering);
    } catch (error) {
      return failed(error);
    }
    // `waits` was called, if at all, before `renderTree` first awaited.
    return (expired === undefined ? rendering : race(rendering, expired))
      .then(done, failed)
      .finally(() => clearTimeout(timer));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #evaluate(peers: Peers, name: string, bundle: ServerBundle, filesRoot: string): Evaluated {
    return this.#evaluations.get(
      peers.shared,
      name,
      bundle.serverHash,
      bundle.hash,
      filesRoot,
      () => decoder.decode(bundle.code),
    );
  }
}

/** The error a render fails with: the time limit's, a refusal of the handler set's, or the component's. */
function renderFailure(error: unknown, loaded: ReadonlyMap<string, Evaluated>): unknown {
  if (error instanceof RenderTimeoutError) return error;
  const failure = failureOf(error, loaded);
  if ("refused" in failure) return failure.refused;
  return new RenderError(failure.component, failure.message, failure.stack, error);
}

/** `work`, or the time limit's error if that comes first; `work`'s late failure is dropped. */
function race<T>(work: Promise<T>, expired: Promise<never>): Promise<T> {
  work.catch(() => {});
  return Promise.race([work, expired]);
}
