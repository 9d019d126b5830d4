import { useCallback, useEffect, useState } from "react";
import { formatHash, parseHash, type Route } from "./route.ts";

/**
 * The route in `location.hash`. `navigate(route, "push")` adds a history entry (choosing a
 * component); `"replace"` does not (editing props, which would otherwise flood history).
 */
export function useHashRoute(): [Route, (route: Route, mode: "push" | "replace") => void] {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  const navigate = useCallback((next: Route, mode: "push" | "replace") => {
    const hash = formatHash(next);
    if (hash !== location.hash) {
      if (mode === "push") history.pushState(null, "", hash);
      else history.replaceState(null, "", hash);
    }
    // A route the page writes has no URL problem left (bad `props` are dropped by then).
    setRoute({ ...next, propsError: undefined });
  }, []);
  return [route, navigate];
}
