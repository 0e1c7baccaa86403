/**
 * A deep copy of JSON-like data (strings, numbers, booleans, null, `undefined`, plain objects and
 * arrays), which a walk copies several times faster than `structuredClone`: messages, events and
 * records are such data, and they are copied at every point where a caller must not share them
 * (a request's history, what an in-memory storage keeps and returns). Anything else inside (a
 * class instance, a `Map`, a `Date`, a cycle, a sparse array) hands the whole value to
 * `structuredClone`, so the result is what `structuredClone` gives, and so is the error for what
 * cannot be cloned (a function, a symbol).
 * @module
 */

import { describeError } from './errors.js';
import * as Errors from './error-constructors.js';

/** Deeper than this is not data a model or a storage keeps; it goes to `structuredClone`. */
const MAX_DEPTH = 64;

/** Thrown inside {@link copyPlain} on anything it does not copy itself. */
const NOT_PLAIN = Symbol('not plain data');

/** A deep copy of `value`; throws `structuredClone`'s `DataCloneError` for what cannot be cloned. */
export function copyData<T>(value: T): T {
  try {
    return copyPlain(value, 0) as T;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return structuredClone(value);
  }
}

/**
 * What a storage keeps of `value`: a deep copy, so the caller's later changes do not reach it; a
 * value that cannot be cloned (a function, say) is `INVALID_INPUT` naming `what`.
 */
export function copyForStorage<T>(value: T, what: string): T {
  try {
    return copyData(value);
  } catch (error) {
    throw Errors.invalidInput(`${what} cannot be stored: ${describeError(error)}`, error);
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
