import { type RefObject, useEffect } from "react";
import { BACKGROUNDS, type Route, WIDTHS } from "./route.ts";

export interface Shortcuts {
  route: Route;
  navigate: (route: Route, mode: "push" | "replace") => void;
  /** Moves the selection through the visible components (`j`/`k`, arrows in the sidebar). */
  step: (by: number) => void;
  /** The sidebar's filter (`/`). */
  filterRef: RefObject<HTMLInputElement | null>;
  /** The retry of the error shown (`r`). */
  retryRef: RefObject<(() => void) | undefined>;
}

/** Keyboard: / filter, j/k move, b background, w width, r retry. */
export function useShortcuts({ route, navigate, step, filterRef, retryRef }: Shortcuts): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable]")) return;
      const cycle = <T>(values: readonly T[], current: T) =>
        values[(values.indexOf(current) + 1) % values.length] as T;
      switch (event.key) {
        case "/":
          event.preventDefault();
          filterRef.current?.focus();
          filterRef.current?.select();
          break;
        case "j":
        case "ArrowDown":
          if (event.key === "ArrowDown" && !target?.closest(".pg-sidebar")) return;
          event.preventDefault();
          step(1);
          break;
        case "k":
        case "ArrowUp":
          if (event.key === "ArrowUp" && !target?.closest(".pg-sidebar")) return;
          event.preventDefault();
          step(-1);
          break;
        case "b":
          navigate({ ...route, background: cycle(BACKGROUNDS, route.background) }, "replace");
          break;
        case "w":
          navigate(
            {
              ...route,
              width: cycle(
                WIDTHS.map((w) => w.value),
                route.width,
              ),
            },
            "replace",
          );
          break;
        case "r":
          retryRef.current?.();
          break;
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [navigate, route, step, filterRef, retryRef]);
}
