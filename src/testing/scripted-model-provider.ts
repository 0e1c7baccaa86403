/**
 * {@link ScriptedModelProvider}: a fake {@link ModelProvider} that plays back scripted
 * responses, so an agent can be tested without a network. The script's shapes are in
 * `script.ts`, the error of a call it has no response for in `unscripted-model-call-error.ts`, and
 * builders of the common responses ({@link reply}) in `reply.ts`.
 * @module
 */
import * as Errors from '../error-constructors.js';
import { READS_REQUEST_ONLY, type ModelProvider } from '../ports/model-provider.js';
import { sleep } from '../timeout.js';
import type { ChatEvent, ChatRequest, ModelInfo } from '../types.js';
import type { ScriptStep } from './script.js';
import { UnscriptedModelCallError } from './unscripted-model-call-error.js';

/** Options of {@link ScriptedModelProvider}. */
export interface ScriptedModelProviderOptions {
  /** Provider id. Default `'scripted'`. */
  id?: string;
  /** Models served. Default: one model, {@link SCRIPTED_MODEL}. */
  models?: ModelInfo[];
  /** Responses, one per `chat` call, in order. More can be added with `enqueue`. */
  script?: ScriptStep[];
}

/** The model a {@link ScriptedModelProvider} serves by default: `scripted-model`. */
export const SCRIPTED_MODEL: ModelInfo = {
  id: 'scripted-model',
  displayName: 'Scripted model',
  contextWindow: 128_000,
  capabilities: { toolUse: true, vision: true, streaming: true },
};

/**
 * A {@link ModelProvider} that answers each `chat` call with the next scripted response.
 *
 * - Each call records a deep copy of its request (`requests`), takes the next step, and streams
 *   its items in order. With no step left it throws an {@link UnscriptedModelCallError} and
 *   keeps it (`unscriptedCalls`), so `assertConsumed()` throws it too.
 * - Before each item it checks the signal: once aborted, it throws `REQUEST_CANCELLED` and
 *   counts the stream in `aborted`. A `delay` or `wait` in progress ends at once on abort.
 *
 * @example
 * const provider = new ScriptedModelProvider({
 *   script: [
 *     reply.toolCalls([{ name: 'get_weather', arguments: { city: 'Oslo' } }]),
 *     reply.text('It is sunny in Oslo.', { chunks: 3 }),
 *   ],
 * });
 * // ... build an agent with it, send a message ...
 * provider.assertConsumed();
 * provider.requests[1]?.messages; // what the model saw on the second call
 */
export class ScriptedModelProvider implements ModelProvider {
  /** It only reads its requests (it copies what it keeps): no per-request copy of the history. */
  readonly [READS_REQUEST_ONLY] = true;
  /** Provider id (default `'scripted'`). */
  readonly id: string;
  /** Models served (default `[SCRIPTED_MODEL]`). */
  readonly models: readonly ModelInfo[];
  readonly #script: ScriptStep[];
  readonly #requests: ChatRequest[] = [];
  readonly #unscripted: UnscriptedModelCallError[] = [];
  #aborted = 0;

  constructor(options: ScriptedModelProviderOptions = {}) {
    this.id = options.id ?? 'scripted';
    this.models = options.models ?? [SCRIPTED_MODEL];
    this.#script = [...(options.script ?? [])];
  }

  /** Deep copies of every request received, in call order. */
  get requests(): readonly ChatRequest[] {
    return this.#requests;
  }

  /** How many times `chat` has been called. */
  get calls(): number {
    return this.#requests.length;
  }

  /** How many scripted steps are still unused. */
  get remaining(): number {
    return this.#script.length;
  }

  /** How many streams ended because their signal aborted. */
  get aborted(): number {
    return this.#aborted;
  }

  /** The calls that found no scripted response, in call order (each was thrown to its caller). */
  get unscriptedCalls(): readonly UnscriptedModelCallError[] {
    return this.#unscripted;
  }

  /** Adds responses after those already scripted. Returns the provider, for chaining. */
  enqueue(...steps: ScriptStep[]): this {
    this.#script.push(...steps);
    return this;
  }

  /**
   * Throws when the calls and the script disagree: the first {@link UnscriptedModelCallError} if
   * the agent made a call the script had no response for, else an `Error` if scripted steps are
   * left over (the agent made fewer calls than scripted).
   */
  assertConsumed(): void {
    const [unscripted] = this.#unscripted;
    if (unscripted) throw unscripted;
    const left = this.#script.length;
    if (left > 0) {
      throw new Error(
        `ScriptedModelProvider: ${left} scripted response${left === 1 ? ' was' : 's were'} not used (${this.calls} call${this.calls === 1 ? '' : 's'} made)`,
      );
    }
  }

  /** Streams the next scripted response for `request`. */
  async *chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    const callIndex = this.#requests.length;
    this.#requests.push(deepCopy(request));
    let completed = false;
    try {
      // An already-aborted call does not use up a step.
      if (signal.aborted) throw Errors.requestCancelled();
      const step = this.#script.shift();
      if (step === undefined) {
        const unscripted = new UnscriptedModelCallError(callIndex, deepCopy(request));
        this.#unscripted.push(unscripted);
        throw unscripted;
      }
      const items = typeof step === 'function' ? step(deepCopy(request), callIndex) : step;
      for (const item of items) {
        // Runs before every item, so also right after the consumer resumes us from a yield.
        if (signal.aborted) throw Errors.requestCancelled();
        switch (item.type) {
          case 'delay':
            await sleep(item.ms, signal).catch(() => {
              throw Errors.requestCancelled();
            });
            break;
          case 'wait':
            await untilSettledOrAborted(item.until, signal);
            break;
          case 'throw':
            throw item.error;
          default:
            yield item;
        }
      }
      completed = true;
    } finally {
      // Counted here so a consumer that aborts and then stops iterating (return()) counts too.
      if (!completed && signal.aborted) this.#aborted += 1;
    }
  }
}

/** A deep copy, or the value itself when it cannot be cloned (it then holds e.g. a function). */
function deepCopy<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/** Waits for `until`; its rejection is thrown as-is; an abort rejects with `REQUEST_CANCELLED`. */
function untilSettledOrAborted(until: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(Errors.requestCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    until.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
