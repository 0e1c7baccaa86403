/**
 * A tool call's arguments back to raw text, as a provider sends them to the model. A module of its
 * own: the OpenAI provider, loaded by `import()`, needs only this, and every module reachable
 * from an `import()` is one a bundler without code splitting wraps in a lazy initialiser.
 * @module
 */

/**
 * The raw JSON text of arguments the history keeps (the reverse of `toolCallArguments`):
 * a string as it is, anything else as JSON (`{}` for what JSON cannot show, e.g. `undefined`).
 */
export function rawToolCallArguments(args: unknown): string {
  return typeof args === 'string' ? args : (JSON.stringify(args) ?? '{}');
}
