import { memo, type ReactNode, type RefObject, useMemo } from "react";
import { problemTitle } from "./metadataProblem.ts";
import type { ListItem } from "./useComponentList.ts";

export interface SidebarProps {
  items: readonly ListItem[];
  selected: string | undefined;
  filter: string;
  onFilter: (filter: string) => void;
  /** The link for a component (keeps background and width). */
  hrefFor: (name: string) => string;
  /** Moves the selection by `step` through the visible items. */
  onStep: (step: number) => void;
  /** The live-reload error of each component that fails right now (its kind says why). */
  broken: ReadonlyMap<string, { error: string }>;
  loading: boolean;
  error: Error | null;
  filterRef: RefObject<HTMLInputElement | null>;
}

const SHORTCUTS: [string[], string][] = [
  [["/"], "filter"],
  [["j", "k"], "next / previous"],
  [["b"], "background"],
  [["w"], "width"],
  [["r"], "retry"],
];

interface Group {
  prefix: string;
  items: ListItem[];
}

/** Splits `app:ui.button` into its prefix and the rest. */
function prefixOf(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? "" : name.slice(0, colon);
}

/** Every whitespace-separated term of the filter occurs in the name, title or description. */
export function matches(item: ListItem, filter: string): boolean {
  const terms = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const text =
    `${item.name} ${item.metadata?.title ?? ""} ${item.metadata?.description ?? ""}`.toLowerCase();
  return terms.every((term) => text.includes(term));
}

export function groupItems(items: readonly ListItem[]): Group[] {
  const groups = new Map<string, ListItem[]>();
  for (const item of items) {
    const prefix = prefixOf(item.name);
    groups.set(prefix, [...(groups.get(prefix) ?? []), item]);
  }
  return [...groups]
    .sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1))
    .map(([prefix, members]) => ({ prefix, items: members }));
}

/**
 * The component list: a filter box, then the components grouped by prefix. Memoised: live
 * reload's news re-render the page, and development React's cost per element is not small.
 */
export const Sidebar = memo(function Sidebar({
  items,
  selected,
  filter,
  onFilter,
  hrefFor,
  onStep,
  broken,
  loading,
  error,
  filterRef,
}: SidebarProps): ReactNode {
  const visible = useMemo(() => items.filter((item) => matches(item, filter)), [items, filter]);
  const groups = useMemo(() => groupItems(visible), [visible]);
  return (
    <nav className="pg-sidebar" aria-label="Components">
      <div className="pg-brand">
        <span className="pg-logo" aria-hidden="true">
          ◆
        </span>
        svc <span className="pg-muted">playground</span>
      </div>
      <div className="pg-filter">
        <input
          ref={filterRef}
          type="search"
          className="pg-input"
          placeholder="Filter components"
          aria-label="Filter components"
          value={filter}
          onChange={(event) => onFilter(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown" || event.key === "ArrowUp") {
              event.preventDefault();
              onStep(event.key === "ArrowDown" ? 1 : -1);
            } else if (event.key === "Escape") {
              onFilter("");
            } else if (event.key === "Enter") {
              event.preventDefault();
              if (!visible.some((item) => item.name === selected)) onStep(0);
              event.currentTarget.blur();
            }
          }}
        />
        <span className="pg-kbd" aria-hidden="true">
          /
        </span>
      </div>
      <div className="pg-nav">
        {error !== null ? <p className="pg-nav-note pg-danger">{error.message}</p> : null}
        {loading ? <p className="pg-nav-note">Loading…</p> : null}
        {!loading && visible.length === 0 ? (
          <p className="pg-nav-note">
            {items.length === 0 ? "No components found." : `Nothing matches “${filter}”.`}
          </p>
        ) : null}
        {groups.map((group) => (
          <section key={group.prefix} className="pg-group">
            <h2 className="pg-group-title">
              {group.prefix === "" ? "components" : `${group.prefix}:`}
              <span className="pg-count">{group.items.length}</span>
            </h2>
            <ul>
              {group.items.map((item) => {
                // The live error is the newer news; the list's problem is what loading found.
                const failure =
                  broken.get(item.name) ??
                  (item.metadata === null ? (item.problem ?? { error: "" }) : undefined);
                const short =
                  group.prefix === "" ? item.name : item.name.slice(group.prefix.length + 1);
                return (
                  <li key={item.name}>
                    <a
                      href={hrefFor(item.name)}
                      className="pg-item"
                      aria-current={item.name === selected ? "page" : undefined}
                      data-name={item.name}
                    >
                      <span className="pg-item-title">
                        {item.metadata?.title && item.metadata.title !== item.name
                          ? item.metadata.title
                          : short}
                        {failure !== undefined ? (
                          <span className="pg-dot pg-dot-error" title={problemTitle(failure)} />
                        ) : null}
                      </span>
                      <span className="pg-item-name">{short}</span>
                      {item.metadata?.description ? (
                        <span className="pg-item-desc">{item.metadata.description}</span>
                      ) : null}
                    </a>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      </div>
      <footer className="pg-keys">
        {SHORTCUTS.map(([keys, what]) => (
          <span key={what}>
            {keys.map((key) => (
              <kbd key={key}>{key}</kbd>
            ))}{" "}
            {what}
          </span>
        ))}
      </footer>
    </nav>
  );
});

/** Names in the order the sidebar shows them (for keyboard navigation). */
export function visibleOrder(items: readonly ListItem[], filter: string): string[] {
  return groupItems(items.filter((item) => matches(item, filter))).flatMap((group) =>
    group.items.map((item) => item.name),
  );
}
