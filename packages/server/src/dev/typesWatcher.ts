import { join, relative } from "node:path";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { SchemaReader } from "../components/metadata.ts";
import type { Logger } from "../logger.ts";
import { canResolveTypesModule, generateTypes, writeTypesFile } from "../types/typesFile.ts";
import { isRacy, nowNs, stampOf } from "../util/fileStamp.ts";
import { type SourceWatcher, watchSources } from "./sourceWatcher.ts";

export interface TypesWatcherOptions {
  /** The declaration file to keep current (absolute). */
  file: string;
  logger: Logger;
  /** Watch the source roots (else only {@link TypesWatcher.update} writes). Default: true. */
  watch?: boolean;
  /** Quiet time after a file-system event before checking, in ms. Default: 50. */
  debounceMs?: number;
  /** What writes the text. Default: {@link generateTypes}. */
  generate?: typeof generateTypes;
}

export interface TypesWatcher {
  /** Resolves once the file has been written (or found current) the first time. */
  readonly ready: Promise<void>;
  /** Checks now; resolves when the file is current (or the failure is logged). */
  update(): Promise<void>;
  close(): void;
}

/**
 * `svc serve`'s side of `svc types`: writes the declaration file at start, and again whenever
 * the components or their `schema.json` files change — only when its text changes, atomically.
 * A broken schema is logged once and leaves the file as it was. Editing a component's code
 * costs a `stat` of each schema: nothing is converted unless a schema or the listing changed.
 */
export function watchTypes(
  registry: ComponentRegistry,
  options: TypesWatcherOptions,
): TypesWatcher {
  return new SchemaTypesWatcher(registry, options);
}

class SchemaTypesWatcher implements TypesWatcher {
  readonly ready: Promise<void>;
  readonly #registry: ComponentRegistry;
  readonly #file: string;
  readonly #logger: Logger;
  readonly #generate: typeof generateTypes;
  readonly #schemas = new SchemaReader();
  /** The file's name as the log shows it. */
  readonly #shown: string;
  readonly #watcher: SourceWatcher | undefined;
  /** The components and schema stamps the file was last generated from. */
  #generatedFrom: string | undefined;
  #lastProblem: string | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #debounce: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(registry: ComponentRegistry, options: TypesWatcherOptions) {
    this.#registry = registry;
    this.#file = options.file;
    this.#logger = options.logger;
    this.#generate = options.generate ?? generateTypes;
    this.#shown = relative(process.cwd(), options.file) || options.file;
    if (!canResolveTypesModule(options.file)) {
      this.#logger.warn(
        `svc types: @svc/protocol cannot be found from ${this.#shown}, so TypeScript ignores its declarations — install @svc/protocol in this project`,
      );
    }
    this.ready = this.update();
    if (options.watch !== false) {
      this.#watcher = watchSources(
        registry.sources.map((source) => source.dir),
        () => {
          clearTimeout(this.#debounce);
          this.#debounce = setTimeout(() => void this.update(), options.debounceMs ?? 50);
        },
      );
    }
  }

  update(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#run()
      .catch((error: unknown) =>
        this.#logger.error(`svc types: updating ${this.#shown} failed`, error),
      )
      .finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#closed) {
          this.#again = false;
          void this.update();
        }
      });
    return this.#running;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#debounce);
    this.#watcher?.close();
  }

  async #run(): Promise<void> {
    await this.#registry.refreshAsync();
    const from = this.#fingerprint();
    if (from !== undefined && from === this.#generatedFrom) return;
    try {
      const content = await this.#generate(this.#registry, { schemas: this.#schemas });
      if (this.#closed) return;
      if (writeTypesFile(this.#file, content)) this.#logger.info(`svc types: wrote ${this.#shown}`);
      this.#generatedFrom = from;
      this.#lastProblem = undefined;
    } catch (error) {
      const problem = (error as Error).message;
      if (problem === this.#lastProblem) return;
      this.#lastProblem = problem;
      this.#logger.warn(`svc types: ${this.#shown} not updated — ${problem}`);
    }
  }

  /** What the file depends on, or undefined when a schema changed too recently to trust. */
  #fingerprint(): string | undefined {
    const readAt = nowNs();
    const parts: string[] = [];
    for (const component of this.#registry.list()) {
      const stamp = stampOf(join(component.dir, "schema.json"));
      if (stamp !== undefined && isRacy(stamp, readAt)) return undefined;
      parts.push(
        stamp === undefined
          ? component.name
          : `${component.name}\0${stamp.ino}:${stamp.size}:${stamp.mtimeNs}:${stamp.ctimeNs}`,
      );
    }
    return parts.join("\n");
  }
}
