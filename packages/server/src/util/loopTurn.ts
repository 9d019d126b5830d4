/**
 * The event loop's turns, as the dev cache and the request handler count them.
 *
 * Requests handled in one turn were read from their sockets by the same poll: they are
 * concurrent, so a file check made for one of them holds for all of them. Under load a
 * turn carries dozens of requests (about 25 at 32 connections on the bench machine), so
 * checking once per turn instead of once per request removes almost every `stat` from the
 * hot path — without ever serving a file older than the turn's first check. The only thing
 * a turn-long check can miss is a write the same process makes synchronously between two
 * calls in one turn; the next turn sees it.
 *
 * The state below is the one piece of freshness state that is process-wide on purpose:
 * there is one event loop per thread, and every handler set in it shares its turns (a
 * handler set's own state is its `Freshness`, see `bundling/freshness.ts`).
 */
let turn = 0;
let scheduled = false;
/** The end of the current turn, shared by every call made in it. */
let ending: Promise<void> | undefined;
/** The end of the next poll phase, shared by every call made before it began. */
let polled: Promise<void> | undefined;

function advance(): void {
  turn++;
  scheduled = false;
}

/** The number of the current turn: it changes once the turn's check phase has run. */
export function currentTurn(): number {
  if (!scheduled) {
    scheduled = true;
    setImmediate(advance).unref();
  }
  return turn;
}

/**
 * Resolves at the end of the current turn (its check phase): calls made in one turn share one
 * promise and one immediate. What the poll phase read is answered together once it has run —
 * a warm bundle, say (see `respond` in `requestHandler.ts`).
 */
export function turnEnd(): Promise<void> {
  ending ??= new Promise((resolve) => {
    setImmediate(() => {
      ending = undefined;
      resolve();
    });
  });
  return ending;
}

/**
 * Resolves once a whole poll phase has run that began after the call: one immediate ends the
 * current turn, a second one runs after the next poll phase. Calls waiting for the same poll
 * phase share one promise. (Why the dev cache waits for it: `afterPoll` in `dirWatches.ts`.)
 */
export function afterNextPoll(): Promise<void> {
  polled ??= new Promise((resolve) => {
    setImmediate(() => {
      polled = undefined;
      setImmediate(resolve);
    });
  });
  return polled;
}
