import type { LiveEvent, LiveStatus } from "@svc/react";

/** What live reload said lately, as the playground shows it. */
export interface LiveState {
  status: LiveStatus;
  /** The last `error` event of each component that does not build now. */
  broken: ReadonlyMap<string, Extract<LiveEvent, { type: "error" }>>;
  /** When each component was last announced as changed (several can change at once). */
  changed: ReadonlyMap<string, number>;
}
