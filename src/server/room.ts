/**
 * `Room`: the places of one instance. Every session it holds and every follower it serves takes
 * one, reserved synchronously before anything is awaited, so concurrent requests never pass a
 * limit: `maxOpenSessions` for the instance (503 `SERVER_BUSY`), `maxOpenSessionsPerUser` for
 * each user (429 `SERVER_BUSY`).
 * @module
 */
import { ServerErrors } from './http.js';

/** A place taken in the room; `free()` gives it back (once; later calls do nothing). */
export interface RoomPlace {
  free(): void;
}

/** The limits of a room. */
export interface RoomLimits {
  maxOpenSessions: number;
  maxOpenSessionsPerUser: number;
}

/** The open places of one instance, in all and by user. */
export class Room {
  #total = 0;
  readonly #byUser = new Map<string, number>();

  constructor(private readonly limits: RoomLimits) {}

  /** Places taken, in all. */
  get size(): number {
    return this.#total;
  }

  /** Places `userId` has taken. */
  heldBy(userId: string): number {
    return this.#byUser.get(userId) ?? 0;
  }

  /**
   * Takes a place for `userId`, or throws `SERVER_BUSY`: the instance's limit first (503), then
   * the user's (429). Synchronous, so a caller that reserves before its first await never lets
   * a concurrent request past a limit.
   * @example
   * const place = host.room.reserve(userId); // throws SERVER_BUSY when full
   * try { await follow(); } finally { place.free(); }
   */
  reserve(userId: string): RoomPlace {
    if (this.#total >= this.limits.maxOpenSessions)
      throw ServerErrors.serverBusy(this.limits.maxOpenSessions);
    const mine = this.heldBy(userId);
    if (mine >= this.limits.maxOpenSessionsPerUser)
      throw ServerErrors.userBusy(this.limits.maxOpenSessionsPerUser);
    this.#total++;
    this.#byUser.set(userId, mine + 1);
    let held = true;
    return {
      free: () => {
        if (!held) return;
        held = false;
        this.#total--;
        const left = this.heldBy(userId) - 1;
        if (left > 0) this.#byUser.set(userId, left);
        else this.#byUser.delete(userId);
      },
    };
  }
}
