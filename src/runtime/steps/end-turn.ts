/**
 * `endTurn`, for every outcome: a partial response becomes an `incomplete` assistant message
 * (plus the interrupted-message note, live only — resume derives it again), `on_error` for a
 * failure, the write queue drained (so `turn.result` means durable), the memory checkpoint, and
 * `turn_end` with the status.
 * @module
 */
import type { EndTurnInput } from '../../../machines/turn.machine.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../../prompt/templates.js';
import type { SessionRuntime, TurnState } from '../session-runtime.js';
import { memoryCheckpoint } from '../../memory/extraction.js';

/** Runs the `finishing` / `cancelling` / `failing` step. */
export async function endTurn(
  rt: SessionRuntime,
  turn: TurnState,
  input: EndTurnInput,
  signal: AbortSignal,
): Promise<void> {
  if (input.status !== 'completed' && turn.draft.streamed) {
    const { text } = turn.draft;
    rt.append({ type: 'assistant', content: text ? [{ type: 'text', text }] : [], status: 'incomplete' });
    rt.append({ type: 'system', content: INTERRUPTED_MESSAGE_NOTE }, false);
    turn.draft = { text: '', reasoning: '', streamed: false };
  }
  if (input.status === 'failed' && input.error) await rt.hook('on_error', turn.id, { error: input.error });
  await rt.writes.drain();
  if (input.status === 'completed') await memoryCheckpoint(rt, signal);
  await rt.hook('turn_end', turn.id, { status: input.status, usage: input.usage });
}
