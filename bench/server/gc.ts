/**
 * A full garbage collection before a memory reading, with or without `--expose-gc`.
 * @module
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null = (globalThis as { gc?: () => void }).gc ?? null;

/** Collects until nothing more goes (three rounds, each after the pending callbacks ran). */
export async function fullGc(): Promise<void> {
  if (!gc) {
    // Without the flag at start-up, V8 still hands out `gc` to a context made after setting it.
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  for (let round = 0; round < 3; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}
