/**
 * Item bookkeeping of the Responses API: which stored output items of a response go back on the
 * wire and how (verbatim, or as a reference to the server's copy), and the call ids a server
 * reuses across responses (qualified for the runtime, the original sent back). Pure.
 * @module
 */
import type { ProviderItems } from '../../../types.js';

/** Who is asking to replay: the provider's id, the request's model, and whether the server stores. */
export interface ReplayTarget {
  providerId: string;
  model: string;
  store: boolean;
}

/** A stored output item: a JSON object with a `type`, otherwise opaque. */
export type OutputItem = { readonly type: string; readonly [key: string]: unknown };

/** Whether `value` is a JSON object with a string `type`: the least an output item must be. */
export function isOutputItem(value: unknown): value is OutputItem {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}

/**
 * What goes back on the wire for one stored response, in its order; `null` when its items may not
 * be replayed here (none stored, or stored by another provider or for another model: their
 * encrypted reasoning would not verify), so the message goes as plain text.
 *
 * - With `store: false`, every item goes verbatim, except a reasoning item that carries neither
 *   `encrypted_content` nor its text (`content`): the server could not read it back, so it is
 *   dropped, and the items it preceded go without their `id` (an id whose reasoning is missing
 *   is refused).
 * - With `store: true`, an item the server kept goes as `{ type: 'item_reference', id }`; a
 *   `function_call` goes whole (its output pairs with it by `call_id`).
 * - A reasoning item with nothing after it (an orphan, e.g. a response cut at its token limit
 *   while thinking) is dropped: the server refuses reasoning without its following item.
 * @example
 * replayItems(message.providerItems, { providerId: 'openai-responses', model: 'gpt-5', store: false });
 */
export function replayItems(stored: ProviderItems | undefined, target: ReplayTarget): unknown[] | null {
  if (!stored || stored.provider !== target.providerId || stored.model !== target.model) return null;
  const kept: { item: OutputItem; reasoning: boolean }[] = [];
  let idless = false;
  for (const item of stored.items) {
    if (!isOutputItem(item)) continue;
    if (item.type === 'reasoning') {
      idless = !readable(item, target.store);
      if (!idless) kept.push({ item: target.store ? reference(item) : item, reasoning: true });
      continue;
    }
    const id = typeof item['id'] === 'string' ? item['id'] : undefined;
    if (idless && id !== undefined && !target.store) {
      const { id: _dropped, ...rest } = item;
      kept.push({ item: rest as OutputItem, reasoning: false });
    } else if (target.store && item.type !== 'function_call' && id !== undefined) {
      kept.push({ item: { type: 'item_reference', id }, reasoning: false });
    } else {
      kept.push({ item, reasoning: false });
    }
  }
  while (kept.at(-1)?.reasoning) kept.pop();
  return kept.length > 0 ? kept.map((entry) => entry.item) : null;
}

/** Whether the server can take this reasoning item back (see {@link replayItems}). */
function readable(item: OutputItem, store: boolean): boolean {
  if (store) return typeof item['id'] === 'string';
  const content = item['content'];
  return typeof item['encrypted_content'] === 'string' || (Array.isArray(content) && content.length > 0);
}

function reference(item: OutputItem): OutputItem {
  return { type: 'item_reference', id: item['id'] as string };
}

/**
 * The call id the runtime gets for a server's `call_id`: the same, unless the history already
 * has a call of that id (Bedrock numbers calls `call_0`, `call_1`, … in every response); then
 * `<call_id>@<suffix>`, with the response id as suffix, which {@link originalCallIds} undoes.
 * @example
 * qualifyCallId('call_0', new Set(['call_0']), 'resp_2'); // 'call_0@resp_2'
 */
export function qualifyCallId(callId: string, taken: ReadonlySet<string>, suffix: string): string {
  if (!taken.has(callId)) return callId;
  let qualified = `${callId}@${suffix}`;
  for (let n = 2; taken.has(qualified); n++) qualified = `${callId}@${suffix}.${n}`;
  return qualified;
}

/**
 * The server's own `call_id` of each call a stored response made, by the id the runtime has for
 * it (the same, or qualified by {@link qualifyCallId}): derived from the stored items alone, so
 * it holds after a reload.
 * @example
 * originalCallIds(items, ['call_0@resp_2']).get('call_0@resp_2'); // 'call_0'
 */
export function originalCallIds(
  items: readonly unknown[],
  runtimeIds: readonly string[],
): Map<string, string> {
  const serverIds = items.flatMap((item) =>
    isOutputItem(item) && item.type === 'function_call' && typeof item['call_id'] === 'string'
      ? [item['call_id']]
      : [],
  );
  const map = new Map<string, string>();
  for (const runtimeId of runtimeIds) {
    const original =
      serverIds.find((id) => id === runtimeId) ?? serverIds.find((id) => runtimeId.startsWith(`${id}@`));
    if (original !== undefined) map.set(runtimeId, original);
  }
  return map;
}
