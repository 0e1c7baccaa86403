/**
 * `startTurn`: the `turn_started` marker (a start with no end is what a reload leaves), the `turn_start` hook (its data is the turn's dynamic prompt sections; an abort
 * fails the turn with `REQUEST_BLOCKED`), `/skill` injection right before the user message, then
 * the user message — appended and handed to storage before the model is called.
 * @module
 */
import type { StartTurnOutput, StepInput } from '../../../machines/turn.types.js';
import * as Errors from '../../error-constructors.js';
import { TURN_STARTED_KEY } from '../../persistence/metadata-keys.js';
import type { SkillManager } from '../../skills/skill-manager.js';
import type { Message, SessionEventPayload, UserInput } from '../../types.js';
import type { HookCaller } from '../session-scope.js';

/** What `startTurn` uses. */
export interface StartTurnScope {
  /** The user's message. */
  input: UserInput;
  hook: HookCaller;
  skills: Pick<SkillManager, 'detect' | 'renderInjection'>;
  append(message: Message): void;
  record(payload: SessionEventPayload): void;
}

/** Runs the `starting` step of a turn. */
export async function startTurn(
  scope: StartTurnScope,
  input: StepInput,
  signal: AbortSignal,
): Promise<StartTurnOutput> {
  scope.record({ type: 'metadata', key: TURN_STARTED_KEY, value: { turnId: input.turnId } });
  const outcome = await scope.hook('turn_start', []);
  if (outcome.aborted !== null) throw Errors.requestBlocked(outcome.aborted);
  // A cancel during the hook stops this step (its signal aborts): nothing may be appended after that.
  if (signal.aborted) return { dynamicSections: outcome.data };

  const text = scope.input.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  for (const skill of scope.skills.detect(text)) scope.append(scope.skills.renderInjection(skill));
  scope.append({ type: 'user', content: scope.input.content });
  return { dynamicSections: outcome.data };
}
