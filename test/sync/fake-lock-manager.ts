/**
 * A `LockManager` for Node, where Web Locks do not exist: exclusive locks by name with the
 * semantics the session lock relies on (a queue per name; `ifAvailable` calls back with `null`
 * when held; `steal` takes the lock at once and rejects the holder's request with an
 * `AbortError`; `signal` aborts a queued request with the signal's reason). The real API is
 * exercised in Chromium by `test/browser/tabs.browser.test.ts`.
 * @module
 */

interface Request {
  callback: (lock: Lock | null) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Exclusive Web Locks in one process. */
export class FakeLockManager {
  readonly #holders = new Map<string, Request>();
  readonly #queues = new Map<string, Request[]>();
  /** Every request's options, in order. */
  readonly requests: { name: string; options: LockOptions }[] = [];

  request(name: string, options: LockOptions, callback: (lock: Lock | null) => unknown): Promise<unknown> {
    this.requests.push({ name, options });
    return new Promise((resolve, reject) => {
      const request: Request = { callback, resolve, reject };
      const holder = this.#holders.get(name);
      if (options.steal) {
        if (holder) holder.reject(new DOMException('the lock was stolen', 'AbortError'));
        return this.#grant(name, request);
      }
      if (!holder) return this.#grant(name, request);
      if (options.ifAvailable) return this.#run(request, null);
      const queue = this.#queues.get(name) ?? [];
      this.#queues.set(name, [...queue, request]);
      options.signal?.addEventListener('abort', () => {
        this.#queues.set(
          name,
          (this.#queues.get(name) ?? []).filter((r) => r !== request),
        );
        reject(options.signal!.reason);
      });
    });
  }

  /** The names held now. */
  held(): string[] {
    return [...this.#holders.keys()];
  }

  #grant(name: string, request: Request): void {
    this.#holders.set(name, request);
    void this.#run(request, { name, mode: 'exclusive' } as Lock).finally(() => {
      if (this.#holders.get(name) !== request) return;
      this.#holders.delete(name);
      const [next, ...rest] = this.#queues.get(name) ?? [];
      this.#queues.set(name, rest);
      if (next) this.#grant(name, next);
    });
  }

  async #run(request: Request, lock: Lock | null): Promise<void> {
    try {
      request.resolve(await request.callback(lock));
    } catch (error) {
      request.reject(error);
    }
  }
}
