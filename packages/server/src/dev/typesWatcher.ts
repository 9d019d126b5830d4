import { join, relative } from "node:path";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { SchemaReader } from "../components/metadata.ts";
import type { Logger } from "../logger.ts";
import { canResolveTypesModule, generateTypes, writeTypesFile } from "../production/typesFile.ts";
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
  const { file, logger, generate = generateTypes } = options;
  const schemas = new SchemaReader();
  const shown = relative(process.cwd(), file) || file;
  /** The components and schema stamps the file was last generated from. */
  let generatedFrom: string | undefined;
  let lastProblem: string | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let debounce: NodeJS.Timeout | undefined;
  let watcher: SourceWatcher | undefined;
  let closed = false;

  /** What the file depends on, or undefined when a schema changed too recently to trust. */
  function fingerprint(): string | undefined {
    const readAt = nowNs();
    const parts: string[] = [];
    for (const component of registry.list()) {
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

  async function run(): Promise<void> {
    await registry.refreshAsync();
    const from = fingerprint();
    if (from !== undefined && from === generatedFrom) return;
    try {
      const content = await generate(registry, { schemas });
      if (closed) return;
      if (writeTypesFile(file, content)) logger.info(`svc types: wrote ${shown}`);
      generatedFrom = from;
      lastProblem = undefined;
    } catch (error) {
      const problem = (error as Error).message;
      if (problem === lastProblem) return;
      lastProblem = problem;
      logger.warn(`svc types: ${shown} not updated — ${problem}`);
    }
  }

  function update(): Promise<void> {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = run()
      .catch((error: unknown) => logger.error(`svc types: updating ${shown} failed`, error))
      .finally(() => {
        running = undefined;
        if (again && !closed) {
          again = false;
          void update();
        }
      });
    return running;
  }

  if (!canResolveTypesModule(file)) {
    logger.warn(
      `svc types: @svc/protocol cannot be found from ${shown}, so TypeScript ignores its declarations — install @svc/protocol in this project`,
    );
  }
  const ready = update();
  if (options.watch !== false) {
    watcher = watchSources(
      registry.sources.map((source) => source.dir),
      () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => void update(), options.debounceMs ?? 50);
      },
    );
  }
  return {
    ready,
    update,
    close() {
      closed = true;
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}
