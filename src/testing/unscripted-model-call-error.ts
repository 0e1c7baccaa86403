/**
 * {@link UnscriptedModelCallError}: what a {@link ScriptedModelProvider} fails with when the agent
 * makes a call the script has no response for.
 * @module
 */
import type { ChatRequest } from '../types.js';

const UNSCRIPTED_MARKER = Symbol.for('youyou-agent.unscripted-model-call');

/** How much of the last user text an {@link UnscriptedModelCallError} message quotes. */
const QUOTED_TEXT_CHARS = 80;

/**
 * What a {@link ScriptedModelProvider} throws for a call it has no scripted response left for:
 * the agent asked the model something the test did not expect. The message names the call —
 * its number, purpose, model and the last user text — so the failure says where the script and
 * the agent parted ways.
 *
 * It cannot go unnoticed: the runtime turns it into the turn's (or the memory step's) error, an
 * `AgentError` whose `cause` is this error; and the provider keeps it, so
 * {@link ScriptedModelProvider.assertConsumed} throws it even in a test that never looks at
 * `turn.result`.
 *
 * @example
 * const provider = new ScriptedModelProvider({ script: [reply.text('Hello!')] });
 * // ... build an agent with it, then two turns ...
 * const { status, error } = await secondTurn.result; // 'failed'
 * UnscriptedModelCallError.isInstance(error?.cause);  // true
 * provider.assertConsumed();
 * // throws UnscriptedModelCallError: ScriptedModelProvider: no scripted response for call #2
 * //   (purpose 'turn', model 'scripted-model', last user text "And tomorrow?")
 */
export class UnscriptedModelCallError extends Error {
  /** The zero-based index of the call, as step functions see it (call #1 is index 0). */
  readonly callIndex: number;
  /** A deep copy of the request that found no scripted response. */
  readonly request: ChatRequest;
  /** @internal marker that survives duplicate copies of the package in one bundle. */
  readonly [UNSCRIPTED_MARKER] = true;

  constructor(callIndex: number, request: ChatRequest) {
    const lastUserText = lastUserTextOf(request);
    const quoted =
      lastUserText === undefined
        ? 'no user text'
        : `last user text ${JSON.stringify(truncate(lastUserText, QUOTED_TEXT_CHARS))}`;
    super(
      `ScriptedModelProvider: no scripted response for call #${callIndex + 1} ` +
        `(purpose '${request.purpose}', model '${request.model}', ${quoted})`,
    );
    this.name = 'UnscriptedModelCallError';
    this.callIndex = callIndex;
    this.request = request;
  }

  /** True for any `UnscriptedModelCallError`, even one made by another copy of this package. */
  static isInstance(value: unknown): value is UnscriptedModelCallError {
    return typeof value === 'object' && value !== null && UNSCRIPTED_MARKER in value;
  }
}

/** The text of the last user message of `request`, if it has one with text. */
function lastUserTextOf(request: ChatRequest): string | undefined {
  for (let i = request.messages.length - 1; i >= 0; i -= 1) {
    const message = request.messages[i];
    if (message?.type !== 'user') continue;
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(' ');
    if (text) return text;
  }
  return undefined;
}

/** `text`, cut to `max` code points with an ellipsis when longer. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max).join('')}…`;
}
