/**
 * A counter that advances once per turn of the event loop.
 *
 * Requests handled in one turn were read from their sockets by the same poll: they are
 * concurrent, so a file check made for one of them holds for all of them. Under load a
 * turn carries dozens of requests (about 25 at 32 connections on the bench machine), so
 * checking once per turn instead of once per request removes almost every `stat` from the
 * hot path — without ever serving a file older than the turn's first check. The only thing
 * a turn-long check can miss is a write the same process makes synchronously between two
 * calls in one turn; the next turn sees it.
 */
let turn = 0;
let scheduled = false;

function advance(): void {
  turn++;
  scheduled = false;
}

export function currentTurn(): number {
  if (!scheduled) {
    scheduled = true;
    setImmediate(advance).unref();
  }
  return turn;
}

let ending: Promise<void> | undefined;

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
