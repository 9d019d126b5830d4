import { mapServerFrames, serverFramesOf } from "./serverModule.ts";

/**
 * Source maps of server bundles, made when a stack needs one. The dev server builds server
 * bundles without a source map — an inline one was most of the bytes to build, copy and
 * compile on every cold render, for the rare render that throws — so a render error's frames
 * (`svc-server:<name>@<serverHash>.cjs:…`) are mapped by building that component's server
 * bundle again with its map, kept only if it is the very version that threw (its code has
 * the version's hash: see `mapServerFrames`).
 */
export class ServerSourceMaps {
  readonly #build: (name: string) => Promise<Uint8Array | undefined>;
  /** Each version's code with its map, by `name@serverHash`: few (renders that threw). */
  readonly #built = new Map<string, Promise<Uint8Array | undefined>>();

  /** `build` gives the server bundle of `name` as its sources are now, with an inline map. */
  constructor(build: (name: string) => Promise<Uint8Array | undefined>) {
    this.#build = build;
  }

  /** `stack` with the frames of every version it names mapped, where the version can be rebuilt. */
  async map(stack: string): Promise<string> {
    let mapped = stack;
    for (const { name, serverHash } of serverFramesOf(stack)) {
      const withMap = await this.#withMap(name, serverHash);
      if (withMap !== undefined) mapped = mapServerFrames(mapped, name, serverHash, withMap);
    }
    return mapped;
  }

  #withMap(name: string, serverHash: string): Promise<Uint8Array | undefined> {
    const key = `${name}@${serverHash}`;
    let built = this.#built.get(key);
    if (built === undefined) {
      built = this.#build(name).catch(() => undefined);
      // Bounded: the oldest goes first (a version that threw once is likely to throw again).
      if (this.#built.size >= 32) this.#built.delete(this.#built.keys().next().value as string);
      this.#built.set(key, built);
    }
    return built;
  }
}
