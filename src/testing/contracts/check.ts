/**
 * A tiny assertion helper for the storage contract suites. They run under vitest in Node and
 * inside a real browser page (where vitest's `expect` does not exist), so this file imports
 * nothing Node-only. A failed check throws an `Error` whose message says what was expected.
 * @module
 */
import { AgentError } from '../../errors.js';
import type { AgentErrorCode } from '../../types.js';

/** One case of a contract suite: `run` gets a fresh, empty storage and rejects on failure. */
export interface ContractCase<S> {
  name: string;
  run(storage: S): Promise<void>;
}

/** Assertions that throw a plain `Error` with a readable message. */
export interface Check {
  /** `actual` is `expected` (`Object.is`). */
  equal(actual: unknown, expected: unknown, what?: string): void;
  /** Same structure and values (arrays order sensitive, own enumerable keys compared as sets). */
  deepEqual(actual: unknown, expected: unknown, what?: string): void;
  /** `condition` holds. */
  ok(condition: unknown, message: string): asserts condition;
  /**
   * `action` (a promise, or a function returning one) rejects with an `AgentError` of `code`.
   * A function that throws synchronously fails the check: storage methods must reject.
   * Resolves with the error, for further checks.
   */
  rejects(
    action: Promise<unknown> | (() => Promise<unknown>),
    code: AgentErrorCode,
    what?: string,
  ): Promise<AgentError>;
}

/** The assertions of the contract suites (see {@link Check}). */
export const check: Check = {
  equal(actual: unknown, expected: unknown, what = 'value'): void {
    if (!Object.is(actual, expected)) {
      fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
    }
  },

  deepEqual(actual: unknown, expected: unknown, what = 'value'): void {
    const difference = firstDifference(actual, expected, what);
    if (difference !== null) fail(difference);
  },

  ok(condition: unknown, message: string): asserts condition {
    if (!condition) fail(message);
  },

  async rejects(
    action: Promise<unknown> | (() => Promise<unknown>),
    code: AgentErrorCode,
    what = 'call',
  ): Promise<AgentError> {
    let promise: Promise<unknown>;
    if (typeof action === 'function') {
      try {
        promise = action();
      } catch (error) {
        return fail(`${what}: expected a rejected promise, but it threw synchronously: ${describe(error)}`);
      }
    } else {
      promise = action;
    }
    try {
      await promise;
    } catch (error) {
      if (!AgentError.isInstance(error)) {
        fail(`${what}: expected an AgentError ${code}, got ${describe(error)}`);
      }
      if (error.code !== code) {
        fail(`${what}: expected an AgentError ${code}, got ${error.code} (${error.message})`);
      }
      return error;
    }
    return fail(`${what}: expected a rejection with ${code}, but it resolved`);
  },
};

function fail(message: string): never {
  throw new Error(message);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : show(error);
}

function show(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A description of the first place `actual` and `expected` differ, or `null`. */
function firstDifference(actual: unknown, expected: unknown, path: string): string | null {
  if (Object.is(actual, expected)) return null;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length) {
      return `${path}: expected length ${expected.length}, got ${actual.length}: ${show(actual)}`;
    }
    for (let i = 0; i < expected.length; i += 1) {
      const difference = firstDifference(actual[i], expected[i], `${path}[${i}]`);
      if (difference !== null) return difference;
    }
    return null;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return `${path}: expected an object, got ${show(actual)}`;
    const expectedKeys = Object.keys(expected).sort();
    const actualKeys = Object.keys(actual).sort();
    if (expectedKeys.join('\u0000') !== actualKeys.join('\u0000')) {
      return `${path}: expected keys ${show(expectedKeys)}, got ${show(actualKeys)}`;
    }
    for (const key of expectedKeys) {
      const difference = firstDifference(actual[key], expected[key], `${path}.${key}`);
      if (difference !== null) return difference;
    }
    return null;
  }
  return `${path}: expected ${show(expected)}, got ${show(actual)}`;
}
