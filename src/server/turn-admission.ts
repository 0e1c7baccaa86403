/**
 * `TurnAdmission`: the most turns (and continues) an instance runs at once. A place is taken
 * before the turn's first await, so concurrent requests never pass the limit; one beyond it is
 * refused at once (503 `SERVER_BUSY`, with `Retry-After`) rather than slowing every running turn.
 * @module
 */
import { AgentError } from '../errors.js';
import type { RunningTurn } from '../session.js';

/** The running turns of one handler. */
export class TurnAdmission {
  #running = 0;

  constructor(private readonly max: number) {}

  /** How many turns run (or are starting) now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Starts a turn with `start` in a place of its own, given back when its result settles (or
   * when it failed to start). `SERVER_BUSY` when every place is taken.
   */
  async admit(start: () => Promise<RunningTurn>): Promise<RunningTurn> {
    if (this.#running >= this.max)
      throw new AgentError('SERVER_BUSY', `this instance runs ${this.max} turns already`, {
        retryable: true,
      });
    this.#running++;
    let turn: RunningTurn;
    try {
      turn = await start();
    } catch (error) {
      this.#running--;
      throw error;
    }
    void turn.result.then(
      () => this.#running--,
      () => this.#running--,
    );
    return turn;
  }
}
