/**
 * Keeps the provider's secrets (its API key and the values of its configured headers) out of the
 * errors it throws. Servers echo them: a 401 body that quotes the `Authorization` header, a
 * proxy's error page, a malformed chunk whose text lands in the JSON parser's message. Such
 * errors reach `error` events, logs and storage, so every message is rewritten, and the `cause` is
 * replaced by a redacted copy that keeps only plain data.
 * @module
 */
import { AgentError } from '../../errors.js';

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not treated as secrets: they are placeholders (`'ollama'`, `'EMPTY'`, `'k'`)
 * whose replacement would garble every message that happens to contain those letters.
 */
const MIN_SECRET_LENGTH = 8;

/** How deep a cause chain or an error body is copied. */
const MAX_DEPTH = 6;

/**
 * Replaces each secret with {@link REDACTED} in errors. Built once per provider.
 * @example
 * const redactor = new SecretRedactor(['sk-live-1234567890']);
 * redactor.text('bad key sk-live-1234567890'); // 'bad key [redacted]'
 */
export class SecretRedactor {
  readonly #secrets: readonly string[];

  constructor(secrets: Iterable<string | undefined>) {
    const kept = new Set<string>();
    for (const secret of secrets) {
      if (typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH) kept.add(secret);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...kept].sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret replaced. */
  text(text: string): string {
    let result = text;
    for (const secret of this.#secrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return result;
  }

  /**
   * `error` with a redacted message, and a redacted copy of its cause (see {@link SecretRedactor}).
   * The same error when there are no secrets.
   */
  error(error: AgentError): AgentError {
    if (this.#secrets.length === 0) return error;
    const copy = new AgentError(error.code, this.text(error.message), {
      retryable: error.retryable,
      source: error.source,
      ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
      ...(error.cause !== undefined && { cause: this.#value(error.cause, 0) }),
    });
    if (error.stack) copy.stack = this.text(error.stack);
    return copy;
  }

  /**
   * Plain data of `value`, redacted: strings, numbers, booleans, arrays, plain objects and errors
   * (as new `Error`s with the same `name`, `message`, `stack`, `cause` and plain-data fields such as
   * `status`, `code` or the SDK's `error` body). Anything else, such as a `Headers` object or a
   * socket, is dropped: it may carry what no message shows.
   */
  #value(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') {
      return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
    }
    if (depth >= MAX_DEPTH) return undefined;
    if (value instanceof Error) return this.#error(value, depth);
    if (Array.isArray(value)) return value.map((item) => this.#value(item, depth + 1));
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return undefined;
    return this.#fields(value as Record<string, unknown>, {}, depth);
  }

  #error(error: Error, depth: number): Error {
    const copy = new Error(this.text(error.message));
    // The SDK's error classes leave `name` as 'Error'; the class says more (`AuthenticationError`).
    copy.name = error.name === 'Error' && error.constructor.name ? error.constructor.name : error.name;
    copy.stack = error.stack === undefined ? undefined : this.text(error.stack);
    if (error.cause !== undefined) copy.cause = this.#value(error.cause, depth + 1);
    return this.#fields(error as unknown as Record<string, unknown>, copy, depth);
  }

  /** Copies the own enumerable fields of `from` that survive redaction onto `to`. */
  #fields<T extends object>(from: Record<string, unknown>, to: T, depth: number): T {
    for (const key of Object.keys(from)) {
      let field: unknown;
      try {
        field = this.#value(from[key], depth + 1);
      } catch {
        continue; // a getter that throws: nothing to copy
      }
      if (field !== undefined) (to as Record<string, unknown>)[this.text(key)] = field;
    }
    return to;
  }
}
