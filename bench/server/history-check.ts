/**
 * Checking one session's stored history after the two-instance part: whatever instance wrote
 * which turn, the history must read as whole turns one after another — a `turn_started` marker,
 * the user message, the answer to *that* message, a `turn_ended` marker for the same turn — with
 * no event stored twice and every turn a client saw complete stored exactly once.
 * @module
 */
import type { SessionEvent } from '../../src/index.js';
import { expectedAnswer } from './model-server.js';

/** What the check found in one session. */
export interface HistoryFindings {
  events: number;
  /** Events out of place: another turn's event inside a turn, an answer to another message, a turn started inside a turn. */
  interleaved: number;
  /** Events stored twice (the same event, or a second copy of a turn's message or marker). */
  duplicated: number;
  /** Turns a client saw complete that are not stored (once) with their answer. */
  missing: number;
  /** Turns that started and never ended (a take-over cut them off). */
  unended: number;
  /** Examples, for the notes. */
  samples: string[];
}

const text = (content: readonly { type: string; text?: string }[]) =>
  content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');

const markerTurn = (event: SessionEvent, key: string): string | null => {
  const { payload } = event;
  if (payload.type !== 'metadata' || payload.key !== key) return null;
  const value = payload.value as { turnId?: unknown } | null;
  return typeof value?.turnId === 'string' ? value.turnId : null;
};

/** Checks `events` against the tags of the turns a client saw complete (answers of `deltas` deltas). */
export function checkHistory(
  events: readonly SessionEvent[],
  completedTags: readonly string[],
  deltas: number,
): HistoryFindings {
  const found: HistoryFindings = {
    events: events.length,
    interleaved: 0,
    duplicated: 0,
    missing: 0,
    unended: 0,
    samples: [],
  };
  const note = (what: string) => {
    if (found.samples.length < 3) found.samples.push(what);
  };
  const seen = new Set<string>();
  const users = new Map<string, number>();
  const answers = new Map<string, number>();
  const started = new Set<string>();
  let open: { turnId: string; tag: string | null } | null = null;
  for (const [i, event] of events.entries()) {
    const json = JSON.stringify(event);
    if (seen.has(json)) {
      found.duplicated++;
      note(`event ${i} stored twice: ${json.slice(0, 80)}`);
    }
    seen.add(json);
    const { payload } = event;
    const begins = markerTurn(event, 'turn_started');
    const ends = markerTurn(event, 'turn_ended');
    if (begins !== null) {
      if (started.has(begins)) {
        found.duplicated++;
        note(`turn ${begins} started twice`);
      }
      started.add(begins);
      if (open) {
        found.unended++;
        note(`turn ${open.turnId} never ended; ${begins} started after it`);
      }
      open = { turnId: begins, tag: null };
    } else if (ends !== null) {
      if (open?.turnId !== ends) {
        found.interleaved++;
        note(`turn ${ends} ended inside ${open?.turnId ?? 'no turn'}`);
      }
      open = null;
    } else if (payload.type === 'user_message') {
      const tag = text(payload.content);
      users.set(tag, (users.get(tag) ?? 0) + 1);
      if (!open || open.tag !== null) {
        found.interleaved++;
        note(`message ${tag} outside a turn of its own`);
      } else open.tag = tag;
    } else if (payload.type === 'assistant_message') {
      const said = text(payload.content);
      // A turn cut off mid-answer keeps what it had said, marked incomplete.
      if (payload.status === 'incomplete' && open?.tag && expectedAnswer(deltas, open.tag).startsWith(said))
        continue;
      const answer = /\[([^\]]*)\]$/.exec(said)?.[1] ?? '';
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
      if (!open || open.tag !== answer) {
        found.interleaved++;
        note(`answer to ${answer} inside the turn of ${open?.tag ?? 'nothing'}`);
      }
    }
  }
  if (open) found.unended++;
  for (const [tag, count] of users)
    if (count > 1) ((found.duplicated += count - 1), note(`message ${tag} stored ${count} times`));
  for (const [tag, count] of answers)
    if (count > 1) ((found.duplicated += count - 1), note(`answer ${tag} stored ${count} times`));
  for (const tag of completedTags) {
    if (users.get(tag) !== 1 || answers.get(tag) !== 1) {
      found.missing++;
      note(`completed turn ${tag} stored ${users.get(tag) ?? 0}× / answered ${answers.get(tag) ?? 0}×`);
    }
  }
  return found;
}
