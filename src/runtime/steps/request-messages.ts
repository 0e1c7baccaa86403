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
import { copyData } from '../../copy-data.js';

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
  for (let i = 0; i < history.length; i++) copy[i] = copyData(history[i]!);
  return copy;
}
