/**
 * `startTurn`: the `turn_start` hook (its data is the turn's dynamic prompt sections; an abort
 * fails the turn with `REQUEST_BLOCKED`), `/skill` injection right before the user message, then
 * the user message — appended and handed to storage before the model is called.
 * @module
 */
import { Errors } from '../../errors.js';
import type { SessionRuntime, TurnState } from '../session-runtime.js';

/** Runs the `starting` step of a turn. */
export async function startTurn(rt: SessionRuntime, turn: TurnState, signal: AbortSignal): Promise<void> {
  const outcome = await rt.hook('turn_start', turn.id, []);
  if (outcome.aborted !== null) throw Errors.requestBlocked(outcome.aborted);
  // A cancel during the hook stops this actor: nothing may be appended after that.
  if (signal.aborted) return;
  turn.dynamicSections = outcome.data;

  const text = turn.input.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  for (const skill of rt.services.skills.detect(text)) {
    rt.append(rt.services.skills.renderInjection(skill));
  }
  rt.append({ type: 'user', content: turn.input.content });
}
