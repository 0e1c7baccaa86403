/**
 * The repeated-call guard (`maxRepeatedToolCalls`): a model stuck in a loop sends the same call
 * again and again. Within one turn, a call with the same tool name and the same arguments as
 * `limit` calls made before it is refused. The counts come in with each batch and go out after
 * it, so they live in the turn's data, not here.
 * @module
 */
import * as ToolResultTexts from '../prompt/tool-result-texts.js';
import type { ToolCallRequest } from '../types.js';

/** How many times each call was made in this turn, by {@link callKey}. */
export type RepeatCounts = Readonly<Record<string, number>>;

/**
 * The counts after a batch, the refused calls added to `denied` (call id → result text). In
 * batch order, each call not in `denied` (denied approval: it never runs) counts once, unless its
 * key already counts `limit`: then it is refused, and does not count. `limit` 0: nothing is refused.
 */
export function refuseRepeats(
  calls: readonly ToolCallRequest[],
  counts: RepeatCounts,
  limit: number,
  denied: Map<string, string>,
): RepeatCounts {
  const next: Record<string, number> = { ...counts };
  for (const call of calls) {
    if (limit === 0 || denied.has(call.callId)) continue;
    const key = callKey(call);
    const made = next[key] ?? 0;
    if (made < limit) next[key] = made + 1;
    else denied.set(call.callId, ToolResultTexts.repeated(limit));
  }
  return next;
}

/**
 * What makes two calls the same call: the tool name and a hash of the canonical JSON of the
 * arguments (none: `{}`; text that is not JSON: the text). A hash, so the turn's data never
 * holds the arguments themselves. 32 bits under one tool name: even 50 different calls of one tool
 * in a turn collide with a chance of about 3 in 10 million.
 */
export function callKey(call: ToolCallRequest): string {
  const text = canonicalJson(call.arguments || '{}');
  // FNV-1a.
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return `${call.toolName}#${hash}`;
}

/**
 * JSON text with every object's keys in sorted order, so key order does not make two calls
 * differ; text that is not JSON comes back as it is. (`JSON.stringify` with a list of keys writes
 * each object's keys in the list's order: the list is every key of the value, sorted.)
 */
export function canonicalJson(text: string): string {
  const keys: string[] = [];
  try {
    return JSON.stringify(
      JSON.parse(text, (key, value: unknown) => (keys.push(key), value)),
      keys.sort(),
    );
  } catch {
    return text;
  }
}
