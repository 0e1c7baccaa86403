/**
 * The shape both sides of the peer bench implement, so one child process can time either: the
 * raw `openai` SDK loop and this library do the same scripted work behind it.
 * @module
 */
import type { Scenario } from './script.js';

/** What a turn produced, checked against the script. */
export interface TurnOutcome {
  answer: string;
  toolCalls: number;
}

/**
 * One client of the model server. `setup` makes what a one-shot run needs (a client, or an agent
 * and its session), `turn` sends one user message and runs the tool loop until the answer, and
 * `teardown` releases everything. The child process times each phase.
 */
export interface BenchClient {
  setup(): Promise<void>;
  turn(text: string): Promise<TurnOutcome>;
  teardown(): Promise<void>;
}

/** How the library side traces its turns (`youyou-agent/otel`): not at all, on the API's no-op tracer, or on the SDK. */
export type OtelMode = 'none' | 'noop' | 'sdk';

/**
 * How a side is created. `conversation`: also subscribe to `session.conversation` during turns.
 * `otel` (library side only): the `otelPlugin` registered, and on which tracer.
 */
export interface ClientOptions {
  baseURL: string;
  scenario: Scenario;
  conversation: boolean;
  otel: OtelMode;
}

/** A side module's export. */
export type CreateClient = (options: ClientOptions) => BenchClient;

/** The system prompt the raw loop sends (the library builds its own). */
export const SYSTEM_PROMPT = 'You are a helpful assistant. Use the lookup tool when asked to.';

/** The description of the `lookup` tool, the same on both sides. */
export const TOOL_DESCRIPTION = 'Looks a key up and returns its value.';

/** The API key both sides send (the server ignores it). */
export const API_KEY = 'bench';
