import { type FileStamp, stampOf } from "../util/fileStamp.ts";
import { currentTurn } from "../util/loopTurn.ts";

/**
 * The stats of one turn of the event loop, shared by every record check of that turn: bundles
 * that share config files and directories (most of them) stat each once per turn. Emptied when
 * a new turn begins. One per handler set (its `Freshness`).
 */
export class TurnStats {
  readonly #memo = new Map<string, FileStamp | null>();
  #turn = -1;

  /** The stamp of `path` as this turn first saw it (`link`: the link itself). */
  shared(path: string, link: boolean): FileStamp | undefined {
    const key = `${link ? "L" : "F"}${path}`;
    const hit = this.#current().get(key);
    if (hit !== undefined) return hit ?? undefined;
    const stamp = stampOf(path, { link });
    this.#memo.set(key, stamp ?? null);
    return stamp;
  }

  /**
   * A stat taken now, never from the memo (a check that confirms watches), and kept in the
   * memo: a later check of the turn that may share stats takes it as it would one of its own.
   * A warm island's browser bundle (watched) and server bundle (not) have the same inputs:
   * stat once.
   */
  fresh(path: string, link: boolean): FileStamp | undefined {
    const stamp = stampOf(path, { link });
    this.#current().set(`${link ? "L" : "F"}${path}`, stamp ?? null);
    return stamp;
  }

  /** The memo of this turn's stats, emptied when a new turn begins. */
  #current(): Map<string, FileStamp | null> {
    const turn = currentTurn();
    if (turn !== this.#turn) {
      this.#memo.clear();
      this.#turn = turn;
    }
    return this.#memo;
  }
}
