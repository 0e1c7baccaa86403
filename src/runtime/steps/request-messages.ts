/**
 * The history as a turn request carries it. Nothing a `pre_request` hook or a provider does to
 * its request may reach the session history, so the request gets a deep copy, unless nothing can
 * write to it: no `pre_request` handler is registered, and the provider declares that it only
 * reads its request (the library's own do). Then a fresh array of the same messages is enough.
 * That array costs O(1) per message, while a copy is O(history) per request, which adds up to
 * O(history²) over a session.
 *
 * The history is not frozen instead: a hook or provider that edits its request in place, which
 * the contract allows, would then throw.
 * @module
 */
import { READS_REQUEST_ONLY, type ModelProvider } from '../../ports/model-provider.js';

export { READS_REQUEST_ONLY };
import type { Message } from '../../types.js';

/** Whether `provider` declares that it only reads its request. */
export function readsRequestOnly(provider: ModelProvider): boolean {
  return (provider as { [READS_REQUEST_ONLY]?: unknown })[READS_REQUEST_ONLY] === true;
}

/**
 * The messages of one request: the same message objects in a fresh array when `shared`,
 * otherwise a deep copy of each.
 */
export function requestMessages(history: readonly Message[], shared: boolean): Message[] {
  if (shared) return history.slice();
  const copy = new Array<Message>(history.length);
  for (let i = 0; i < history.length; i++) copy[i] = copyMessage(history[i]!);
  return copy;
}

/** Deeper than this is not a message a model reads; such data (or a cycle) goes to `structuredClone`. */
const MAX_DEPTH = 64;

/** Thrown inside {@link copyPlain} on anything it does not copy itself. */
const NOT_PLAIN = Symbol('not plain data');

/**
 * A deep copy of one message. Messages hold JSON data (strings, numbers, booleans, null, plain
 * objects and arrays), which a walk over it copies about ten times faster than `structuredClone`.
 * A message with anything else in it (a class instance, a Map, a cycle) gets `structuredClone`,
 * as before.
 */
function copyMessage(message: Message): Message {
  try {
    return copyPlain(message, 0) as Message;
  } catch {
    return structuredClone(message);
  }
}

function copyPlain(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw NOT_PLAIN;
    return value;
  }
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    const copy = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      if (!(i in array)) throw NOT_PLAIN;
      copy[i] = copyPlain(array[i], depth + 1);
    }
    return copy;
  }
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    // Assigning `__proto__` would set the prototype, not copy the key (JSON.parse makes it a key).
    if (key === '__proto__') throw NOT_PLAIN;
    copy[key] = copyPlain(record[key], depth + 1);
  }
  return copy;
}
