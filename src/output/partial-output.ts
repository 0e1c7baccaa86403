/**
 * `PartialOutput`: the structured answer as it streams. A provider that streams a tool call's
 * arguments (`tool_call_delta`) lets the runtime show the `final_answer` call's object while the
 * model writes it: the argument text grows, and at most every {@link PARTIAL_OUTPUT_INTERVAL_MS}
 * — and only when it grew — it is parsed as a JSON prefix and emitted as `output_delta`.
 * Partials are not validated: they are what the model wrote so far.
 * @module
 */
import type { Clock } from '../clock.js';
import type { ChatEvent } from '../types.js';
import { FINAL_ANSWER_TOOL } from './final-answer.js';
import { parsePartialJson } from './partial-json.js';

/** The least time between two `output_delta` events of a response, in ms. */
export const PARTIAL_OUTPUT_INTERVAL_MS = 50;

type ToolCallDelta = Extract<ChatEvent, { type: 'tool_call_delta' }>;

/** One response's streamed tool-call arguments, by call index. */
export class PartialOutput {
  readonly #calls = new Map<number, { toolName: string; text: string }>();
  #lastParseAt: number | null = null;

  readonly #clock: Clock;
  /** Turns a parsed partial into what the answer's schema describes (unwraps a wrapped schema). */
  readonly #unwrap: (partial: unknown) => unknown;
  readonly #emit: (partial: unknown) => void;

  constructor(clock: Clock, unwrap: (partial: unknown) => unknown, emit: (partial: unknown) => void) {
    this.#clock = clock;
    this.#unwrap = unwrap;
    this.#emit = emit;
  }

  /** A new response starts: what the last one streamed is forgotten. */
  reset(): void {
    this.#calls.clear();
    this.#lastParseAt = null;
  }

  /** Takes one piece of a call's arguments; may emit the answer's partial object. */
  add(delta: ToolCallDelta): void {
    let call = this.#calls.get(delta.index);
    if (!call) this.#calls.set(delta.index, (call = { toolName: '', text: '' }));
    if (!call.toolName && delta.toolName) call.toolName = delta.toolName;
    if (delta.argumentsDelta === '') return;
    call.text += delta.argumentsDelta;
    if (call.toolName !== FINAL_ANSWER_TOOL) return;
    const now = this.#clock.now();
    if (this.#lastParseAt !== null && now - this.#lastParseAt < PARTIAL_OUTPUT_INTERVAL_MS) return;
    const partial = parsePartialJson(call.text);
    if (partial === undefined) return;
    this.#lastParseAt = now;
    this.#emit(this.#unwrap(partial));
  }
}
