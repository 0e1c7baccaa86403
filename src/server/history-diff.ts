/**
 * What changed in a session's history since the client was last told, as a splice: the messages
 * appended, or the part a compaction replaced. Messages keep their identity in the history, so
 * this is a reference check per message (never a comparison of their content).
 * @module
 */
import type { Message } from '../types.js';
import type { MessagesSplice } from '../remote/wire.js';

/** The splice from `before` to `after`, or `null` when they hold the same messages. */
export function diffHistory(before: readonly Message[], after: readonly Message[]): MessagesSplice | null {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  )
    end++;
  if (start === before.length && start === after.length) return null;
  return { at: start, remove: before.length - start - end, insert: after.slice(start, after.length - end) };
}
