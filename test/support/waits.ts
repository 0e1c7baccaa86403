/**
 * Exact waits for tests: a test holds something open with a {@link deferred} and lets it go when
 * it decides; {@link meeting} shows that calls overlap; {@link promiseJobsRun} is the one wait for
 * a "has not happened yet" check. Nothing here polls or sleeps. No Node-only API at module load,
 * so the browser page bundles can import it too.
 * @module
 */

/** A promise together with the functions that settle it. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/**
 * A promise the test settles itself: hold a scripted response, a tool or a storage write open
 * with `promise`, and release it with `resolve()`.
 * @example
 * const release = deferred();
 * const provider = new ScriptedModelProvider({ script: [[{ type: 'wait', until: release.promise }]] });
 * // ... the turn is now parked on the wait ...
 * release.resolve();
 */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A meeting point for `n` callers: each `arrive()` resolves once all `n` have arrived. Calls that
 * really overlap all get through; calls made one after the other never do (the first one waits
 * for the others, and the test times out), so no clock decides the outcome.
 * @example
 * const meet = meeting(2);
 * const tool = recordingTool('read', { run: async (text) => (await meet(), text) });
 */
export function meeting(n: number): () => Promise<void> {
  const all = deferred();
  let arrived = 0;
  return () => {
    arrived += 1;
    if (arrived === n) all.resolve();
    return all.promise;
  };
}

/**
 * Resolves once every promise job queued so far has run, and every job those queued in turn:
 * one macrotask later, after the whole microtask queue has drained. So whatever settles through
 * promises alone — no timer, no I/O — has settled by then. That makes a "not yet" check exact:
 * `await promiseJobsRun(); expect(settled).toBe(false)` says the promise is really held up by
 * what the test holds, not merely slow.
 */
export function promiseJobsRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether `promise` has settled once every pending promise job has run ({@link promiseJobsRun}). */
export async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await promiseJobsRun();
  return settled;
}
