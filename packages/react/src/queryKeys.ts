import type { SvcClient } from "@svc/runtime";

/**
 * The query keys of svc's TanStack queries, made here and nowhere else. Each carries the
 * client's source (API base or manifest URL), so two providers loading from different places
 * never share an entry on one QueryClient; each starts with `["component", name]` (the key
 * the spec names), so `invalidateQueries({ queryKey: ["component", name] })` reaches a
 * component from every source, its metadata included.
 */
export const svcQueryKeys = {
  /** A component's module: `["component", name, source]`. */
  component: (client: Pick<SvcClient, "source">, name: string) =>
    ["component", name, client.source] as const,
  /** A component's metadata: `["component", name, source, "metadata"]`. */
  metadata: (client: Pick<SvcClient, "source">, name: string) =>
    ["component", name, client.source, "metadata"] as const,
  /** Every query of one source (for `findAll`, `invalidateQueries`). */
  matches(client: Pick<SvcClient, "source">, key: readonly unknown[]): boolean {
    return key[0] === "component" && key[2] === client.source;
  },
  /** The component name of a module key of `client`'s source; undefined for other keys. */
  componentOf(client: Pick<SvcClient, "source">, key: readonly unknown[]): string | undefined {
    return key.length === 3 && svcQueryKeys.matches(client, key) && typeof key[1] === "string"
      ? key[1]
      : undefined;
  },
};
