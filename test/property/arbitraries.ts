/**
 * fast-check arbitraries of {@link Scenario}s. Weights keep most runs ordinary (answers, tool
 * rounds, an occasional failure) so the rare paths — a cancel in a hook, a retry wait, a stalled
 * stream — meet a realistic turn rather than only each other.
 * @module
 */
import fc from 'fast-check';
import {
  COUNTED_EVENT_TYPES,
  HOOK_ACTS,
  READ_TOOL,
  TOOL_MODES,
  TURN_HOOK_EVENTS,
  UNKNOWN_TOOL,
  WRITE_TOOL,
  type CallSpec,
  type Ending,
  type HookAct,
  type Interrupt,
  type ResponseSpec,
  type Scenario,
  type Step,
  type TriggerPoint,
  type TurnPlan,
} from './scenario.js';
import type { HookEvent } from '../../src/index.js';

/** Short text with some non-ASCII (a split must never break a code point). */
const words = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('Paris', 'is', 'sunny', 'ok', 'a note', ' ', '\n') },
  { weight: 1, arbitrary: fc.constantFrom('日本語', 'émoji 🎉', '') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

const callSpec: fc.Arbitrary<CallSpec> = fc.record({
  tool: fc.oneof(
    { weight: 4, arbitrary: fc.constant(READ_TOOL) },
    { weight: 3, arbitrary: fc.constant(WRITE_TOOL) },
    { weight: 1, arbitrary: fc.constant(UNKNOWN_TOOL) },
  ),
  mode: fc.oneof(
    { weight: 6, arbitrary: fc.constant('ok' as const) },
    { weight: 2, arbitrary: fc.constant('long' as const) },
    { weight: 1, arbitrary: fc.constantFrom(...TOOL_MODES) },
  ),
  args: fc.oneof(
    { weight: 8, arbitrary: fc.constant('valid' as const) },
    { weight: 1, arbitrary: fc.constantFrom('invalid_json' as const, 'wrong_schema' as const) },
  ),
  repeatId: fc.oneof(
    { weight: 5, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

const ending: fc.Arbitrary<Ending> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('done' as const),
      finishReason: fc.constantFrom('stop' as const, 'length' as const, 'content_filter' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('throw' as const),
      error: fc.constantFrom('retryable' as const, 'fatal' as const, 'foreign' as const),
      at: fc.nat({ max: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'no_finish' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('malformed' as const), at: fc.nat({ max: 6 }) }) },
);

export const responseSpec: fc.Arbitrary<ResponseSpec> = fc.record({
  reasoning: fc.option(words, { freq: 4 }),
  text: fc.array(words, { maxLength: 4 }),
  calls: fc.oneof(
    { weight: 3, arbitrary: fc.constant<CallSpec[]>([]) },
    { weight: 2, arbitrary: fc.array(callSpec, { minLength: 1, maxLength: 3 }) },
  ),
  usage: fc.option(fc.record({ inputTokens: fc.nat({ max: 2_000 }), outputTokens: fc.nat({ max: 200 }) }), {
    freq: 3,
  }),
  stall: fc.option(
    fc.record({ at: fc.nat({ max: 6 }), kind: fc.constantFrom('wait' as const, 'delay' as const) }),
    {
      freq: 4,
    },
  ),
  ending,
});

const triggerPoint: fc.Arbitrary<TriggerPoint> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'immediately' as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      type: fc.constantFrom(...COUNTED_EVENT_TYPES),
      n: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'stall' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'tool' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'retry_wait' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('hook' as const),
      event: fc.constantFrom(...TURN_HOOK_EVENTS),
      then: fc.constantFrom(...HOOK_ACTS),
    }),
  },
);

const interrupt: fc.Arbitrary<Interrupt> = fc.record({
  action: fc.oneof(
    { weight: 6, arbitrary: fc.constant('cancel' as const) },
    { weight: 1, arbitrary: fc.constantFrom('close' as const, 'shutdown' as const) },
  ),
  at: triggerPoint,
  timing: fc.constantFrom('sync' as const, 'microtask' as const, 'macrotask' as const),
});

const turnPlan: fc.Arbitrary<TurnPlan> = fc.record({
  text: words.filter((w) => w.trim() !== '').map((w) => `user says ${w}`),
  skill: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  image: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  responses: fc.array(responseSpec, { maxLength: 4 }),
  interrupt: fc.option(interrupt, { freq: 2 }),
  busySend: fc.oneof(
    { weight: 4, arbitrary: fc.constant('none' as const) },
    { weight: 1, arbitrary: fc.constantFrom('right_away' as const, 'at_interrupt' as const) },
  ),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), plan: turnPlan }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('resume' as const),
      via: fc.constantFrom('same_agent' as const, 'new_agent' as const, 'shutdown_during_close' as const),
    }),
  },
);

const hookActs: fc.Arbitrary<HookAct[]> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constant('continue' as const) },
    { weight: 1, arbitrary: fc.constantFrom(...HOOK_ACTS) },
  ),
  { minLength: 1, maxLength: 4 },
);

const SESSION_HOOK_EVENTS = ['session_start', 'session_end'] as const satisfies readonly HookEvent[];

/** Hook behaviours for a few events; most runs have none. */
const hooks: fc.Arbitrary<Partial<Record<HookEvent, HookAct[]>>> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({}) },
  {
    weight: 2,
    arbitrary: fc.dictionary(fc.constantFrom(...TURN_HOOK_EVENTS, ...SESSION_HOOK_EVENTS), hookActs, {
      maxKeys: 3,
    }),
  },
);

/** A whole run: up to five steps. */
export const scenario: fc.Arbitrary<Scenario> = fc.record({
  maxRetries: fc.integer({ min: 0, max: 3 }),
  maxToolCallsPerTurn: fc.oneof(
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
    { weight: 2, arbitrary: fc.constant(50) },
  ),
  checkpointInterval: fc.option(fc.integer({ min: 1, max: 2 }), { freq: 4 }),
  memoryAnswer: fc.constantFrom('valid' as const, 'invalid' as const, 'throw' as const),
  slowStorage: fc.boolean(),
  contextWindow: fc.oneof(
    { weight: 2, arbitrary: fc.constant('large' as const) },
    { weight: 1, arbitrary: fc.constant('small' as const) },
  ),
  compactionAnswer: fc.oneof(
    { weight: 3, arbitrary: fc.constant('ok' as const) },
    { weight: 1, arbitrary: fc.constant('throw' as const) },
  ),
  hooks,
  pluginShutdown: fc.oneof(
    { weight: 6, arbitrary: fc.constant('ok' as const) },
    { weight: 1, arbitrary: fc.constantFrom('throw' as const, 'hang' as const) },
  ),
  steps: fc.array(step, { minLength: 1, maxLength: 5 }),
});
