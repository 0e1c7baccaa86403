/**
 * `validateOutput`: a turn that asks for structured output checks each response that called
 * `final_answer` — or that answered without any tool call, which counts as a failed attempt.
 *
 * Every call of the response gets its one `tool_result`, so the history stays valid for the next
 * request: the answer's call "Output accepted." or what was wrong with it, any other call of the
 * same response "not run". A valid answer is kept for `turn.result`, stored (`turn_output`) and
 * emitted (`output`); an invalid one gets a repair round while repairs are left (a response in
 * plain text also gets a system note asking for the tool), then `OUTPUT_INVALID`.
 * @module
 */
import type { ValidateOutputInput, ValidateOutputOutput } from '../../../machines/turn.types.js';
import * as Errors from '../../error-constructors.js';
import { checkAnswer, FINAL_ANSWER_TOOL, type PreparedOutput } from '../../output/final-answer.js';
import * as OutputTexts from '../../output/output-texts.js';
import { TURN_OUTPUT_KEY } from '../../persistence/metadata-keys.js';
import type { AgentEventPayload, Message, SessionEventPayload, ToolCallRequest } from '../../types.js';

/** What `validateOutput` uses. */
export interface ValidateOutputScope {
  output: PreparedOutput;
  /** The recorded calls with their arguments. */
  pendingCalls: ReadonlyMap<string, ToolCallRequest>;
  append(message: Message): void;
  record(payload: SessionEventPayload): void;
  emit(payload: AgentEventPayload): void;
  /** Keeps the valid answer for the turn's result. */
  keep(output: unknown): void;
}

/** Runs the `validatingOutput` step. */
export async function validateOutput(
  scope: ValidateOutputScope,
  input: ValidateOutputInput,
): Promise<ValidateOutputOutput> {
  const answer = input.calls.find((call) => call.toolName === FINAL_ANSWER_TOOL);
  const raw = answer && scope.pendingCalls.get(answer.callId);
  const check = raw
    ? await checkAnswer(scope.output, raw.arguments)
    : { ok: false as const, problem: OutputTexts.textInsteadOfCall };
  for (const call of input.calls) {
    const isAnswer = call === answer;
    scope.append({
      type: 'tool_result',
      callId: call.callId,
      content: !isAnswer ? OutputTexts.notRunBesideAnswer : check.ok ? OutputTexts.accepted : check.problem,
      isError: !isAnswer || !check.ok,
    });
  }
  if (check.ok) {
    scope.keep(check.output);
    scope.record({
      type: 'metadata',
      key: TURN_OUTPUT_KEY,
      value: { turnId: input.turnId, callId: answer!.callId, output: check.output },
    });
    scope.emit({ type: 'output', output: check.output });
    return { verdict: 'accepted' };
  }
  if (input.repairsLeft > 0) {
    if (!answer) scope.append({ type: 'system', content: OutputTexts.textInsteadOfCall });
    return { verdict: 'repair' };
  }
  return {
    verdict: 'rejected',
    error: Errors.outputInvalid(OutputTexts.outputInvalid(input.repairsUsed, check.problem)),
  };
}
