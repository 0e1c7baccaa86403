/**
 * Batching of writes: what is pushed in the same tick, or while a batch is being written, goes
 * into the next batch, written as one unit. Batches run one after another, so order is kept.
 * @module
 */

interface Entry<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * What a batch write reports: for each item, `undefined` when it was stored, or the error its
 * caller gets (an item refused on its own, while the rest of the batch was stored).
 */
export type BatchOutcome = readonly unknown[] | void;

/** An ordered queue that writes its items in batches through `write`. */
export class WriteQueue<T> {
  #pending: Entry<T>[] = [];
  #tail: Promise<void> = Promise.resolve();
  #scheduled = false;

  /**
   * `write` stores one batch, all or nothing; its rejection rejects every item of the batch. It
   * may refuse single items instead, through its {@link BatchOutcome}.
   */
  constructor(private readonly write: (items: T[]) => Promise<BatchOutcome>) {}

  /** Queues `item`; resolves once its batch is written, rejects if that batch failed. */
  push(item: T): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
    });
    if (!this.#scheduled) {
      this.#scheduled = true;
      // Chained behind the batch in flight (or a microtask away when idle), so every push of
      // this tick, and every push made while the previous batch is written, joins this batch.
      this.#tail = this.#tail.then(() => this.#flush());
    }
    return written;
  }

  /** Resolves once everything pushed so far is written or has failed (never rejects). */
  settled(): Promise<void> {
    return this.#tail;
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    try {
      const refused = await this.write(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => {
        const error = refused?.[i];
        if (error === undefined) entry.resolve();
        else entry.reject(error);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
