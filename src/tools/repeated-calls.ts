/**
 * The repeated-call guard (`maxRepeatedToolCalls`): a model stuck in a loop sends the same call
 * again and again. Within one turn, a call with the same tool name and the same arguments as
 * `limit` executed calls before it is refused. Only calls that ran count: an unknown tool,
 * invalid arguments, a denied, refused or skipped call never does. The counts come in with each
 * batch and go out after it, so they live in the turn's data, not here.
 * @module
 */
import * as ToolResultTexts from '../prompt/tool-result-texts.js';
import type { ToolCallRequest } from '../types.js';

/** How many times each call was executed in this turn, by {@link CallKeys.key}. */
export type RepeatCounts = Readonly<Record<string, number>>;

/**
 * What makes two calls the same call: the tool name and the canonical JSON of the arguments
 * (none: `{}`; text that is not JSON: the text), compared exactly — a hash would let two
 * different calls collide, and refuse one that was never made. The turn's data (which the
 * inspector shows) holds only `tool#n`, where `n` numbers the distinct calls of the turn; the
 * arguments stay in this table, one per turn.
 */
export class CallKeys {
  readonly #ids = new Map<string, number>();

  /** The key of `call`: the same for the same tool and canonical arguments. */
  key(call: ToolCallRequest): string {
    const text = `${call.toolName}\u0000${canonicalJson(call.arguments || '{}')}`;
    let id = this.#ids.get(text);
    if (id === undefined) this.#ids.set(text, (id = this.#ids.size));
    return `${call.toolName}#${id}`;
  }
}

/**
 * Adds the refused calls of a batch to `denied` (call id → result text). In batch order, a call
 * not in `denied` is refused when its key already counts `limit`, counting the earlier calls of
 * this batch with the same key as if they ran: identical calls share their tool and arguments,
 * so they share whether they are valid too. `limit` 0: nothing is refused.
 */
export function refuseRepeats(
  keys: CallKeys,
  calls: readonly ToolCallRequest[],
  counts: RepeatCounts,
  limit: number,
  denied: Map<string, string>,
): void {
  if (limit === 0) return;
  const inBatch = new Map<string, number>();
  for (const call of calls) {
    if (denied.has(call.callId)) continue;
    const key = keys.key(call);
    const made = (counts[key] ?? 0) + (inBatch.get(key) ?? 0);
    if (made < limit) inBatch.set(key, (inBatch.get(key) ?? 0) + 1);
    else denied.set(call.callId, ToolResultTexts.repeated(limit));
  }
}

/**
 * The counts after a batch: `counts` plus one for each call that was executed. `limit` 0 keeps
 * no counts (the guard is off).
 */
export function countExecuted(
  keys: CallKeys,
  calls: readonly ToolCallRequest[],
  executed: ReadonlySet<string>,
  counts: RepeatCounts,
  limit: number,
): RepeatCounts {
  if (limit === 0) return counts;
  const next: Record<string, number> = { ...counts };
  for (const call of calls) {
    if (!executed.has(call.callId)) continue;
    const key = keys.key(call);
    next[key] = (next[key] ?? 0) + 1;
  }
  return next;
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
