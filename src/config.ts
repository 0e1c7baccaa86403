/**
 * `AgentConfig`: the agent's settings, validated with zod at `build()` (unknown keys are
 * rejected), with every default written down here once. Each schema is built inside an arrow call
 * marked `@__PURE__`, so an app's bundler drops the ones it never uses (zod's builders and
 * `.check()` are otherwise calls that may have effects).
 * @module
 */
import * as z from 'zod/mini';
import { integer } from './vocabulary/checks.js';
import type { InspectionEvent, Observer } from 'xstate';
import { BudgetConfigSchema, type BudgetConfig } from './budget/budget-config.js';
import type { Clock } from './clock.js';
import type { ApprovalQuery } from './ports/tool-handler.js';

const positiveInt = () => integer().check(z.minimum(1));
const nonNegativeInt = () => integer().check(z.minimum(0));

/** Key-value lines rendered into the prompt as `<environment_context>`. */
export type EnvironmentContext = Record<string, string>;
/** An environment context, or a function producing one each turn. */
export type EnvironmentContextSource =
  EnvironmentContext | (() => EnvironmentContext | Promise<EnvironmentContext>);
/** XState's `inspect` option: an observer of every inspection event of the actor system. */
export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** Schema of {@link EnvironmentContext}. */
export const EnvironmentContextSchema = /* @__PURE__ */ (() => z.record(z.string(), z.string()))();

/**
 * A ratio above 0, up to 1 (`withOne`) or below it. The upper bound by a refinement: zod's
 * less-than check would be one more class in every app, for these two fields alone.
 */
const ratio = (withOne: boolean) =>
  z.number().check(
    z.gt(0),
    z.refine((value: number) => (withOne ? value <= 1 : value < 1), withOne ? 'must be ≤ 1' : 'must be < 1'),
  );

/** Schema of {@link CompactionConfig}, defaults included. */
export const CompactionConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    enabled: z._default(z.boolean(), true),
    thresholdRatio: z._default(ratio(true), 0.8),
    reservedOutputTokens: z._default(nonNegativeInt(), 20_000),
    bufferTokens: z._default(nonNegativeInt(), 13_000),
    keepRecentToolResults: z._default(nonNegativeInt(), 6),
    keepRecentRatio: z._default(ratio(false), 0.2),
    maxConsecutiveFailures: z._default(positiveInt(), 3),
  }))();

/** Schema of {@link MemoryConfig}, defaults included. */
export const MemoryConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    namespace: z.string().check(z.minLength(1)),
    maxItems: z._default(positiveInt(), 20),
    checkpointInterval: z._default(positiveInt(), 10),
    extractionModel: z.optional(z.string().check(z.minLength(1))),
    consolidateAbove: z._default(positiveInt(), 100),
  }))();

/** Schema of {@link RetryConfig}, defaults included. */
export const RetryConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    maxRetries: z._default(nonNegativeInt(), 4),
    initialDelayMs: z._default(nonNegativeInt(), 500),
    maxDelayMs: z._default(nonNegativeInt(), 30_000),
  }))();

/** What an approval policy answers for one call: `undefined` leaves it to the session's rules and the tool. */
export type ApprovalPolicyAnswer = 'allow' | 'ask' | 'deny' | undefined;

/** Decides tool calls before anyone is asked (see {@link ApprovalConfig}). */
export type ApprovalPolicy = (
  query: ApprovalQuery<unknown>,
) => ApprovalPolicyAnswer | Promise<ApprovalPolicyAnswer>;

/** Schema of {@link ApprovalConfig}, defaults included. */
export const ApprovalConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    policy: z.optional(z.custom<ApprovalPolicy>((v) => typeof v === 'function', 'expected function')),
    timeoutMs: z._default(nonNegativeInt(), 0),
  }))();

/** Schema of {@link AgentConfig}; parsing it fills every default. */
export const AgentConfigSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    defaultModel: z.string().check(z.minLength(1)),
    systemInstructions: z._default(z.array(z.string()), []),
    personality: z.optional(z.string()),
    environmentContext: z.optional(
      z.union([
        EnvironmentContextSchema,
        z.custom<() => EnvironmentContext | Promise<EnvironmentContext>>((v) => typeof v === 'function'),
      ]),
    ),
    toolTimeoutMs: z._default(positiveInt(), 120_000),
    maxToolCallsPerTurn: z._default(positiveInt(), 50),
    maxRepeatedToolCalls: z._default(nonNegativeInt(), 3),
    hookTimeoutMs: z._default(positiveInt(), 30_000),
    storageTimeoutMs: z._default(positiveInt(), 30_000),
    streamIdleTimeoutMs: z._default(positiveInt(), 60_000),
    toolSourceTimeoutMs: z._default(positiveInt(), 5_000),
    compaction: z._default(CompactionConfigSchema, CompactionConfigSchema.parse({})),
    memory: z.optional(MemoryConfigSchema),
    retry: z._default(RetryConfigSchema, RetryConfigSchema.parse({})),
    approval: z._default(ApprovalConfigSchema, { timeoutMs: 0 }),
    budget: z.optional(BudgetConfigSchema),
    inspect: z.optional(
      z.custom<InspectionObserver>((v) => typeof v === 'function' || (typeof v === 'object' && v !== null)),
    ),
    clock: z.optional(
      z.custom<Clock>(
        (v) =>
          typeof v === 'object' &&
          v !== null &&
          ['now', 'setTimeout', 'clearTimeout'].every(
            (key) => typeof (v as unknown as Record<string, unknown>)[key] === 'function',
          ),
        { message: 'a clock needs now(), setTimeout() and clearTimeout() functions' },
      ),
    ),
  }))();

/** Context compaction settings. */
export interface CompactionConfig {
  /** Default `true`. */
  enabled?: boolean;
  /** Compact above this share of the window. Default `0.8`. */
  thresholdRatio?: number;
  /** Tokens kept free for the answer (shrinks to W/4 on small windows). Default `20_000`. */
  reservedOutputTokens?: number;
  /** Safety margin (shrinks to W/10 on small windows). Default `13_000`. */
  bufferTokens?: number;
  /** Micro-compaction keeps this many latest tool results intact. Default `6`. */
  keepRecentToolResults?: number;
  /** Summary compaction keeps recent messages worth about this share of the window. Default `0.2`. */
  keepRecentRatio?: number;
  /** After this many failures in a row, compaction stops for the session. Default `3`. */
  maxConsecutiveFailures?: number;
}

/** Long-term memory settings. */
export interface MemoryConfig {
  /** Memories are read and written in this namespace. */
  namespace: string;
  /** At most this many memories go into the prompt. Default `20`. */
  maxItems?: number;
  /** Extract memories every this many turns (and at close). Default `10`. */
  checkpointInterval?: number;
  /** Model used for extraction. Default: the session's model. */
  extractionModel?: string;
  /**
   * When an extraction has saved memories and the namespace then holds more than this many, the
   * extraction model consolidates them: it merges duplicates and drops stale memories, answering
   * the memories to add and the ids to delete. It is shown the namespace's newest 200 memories.
   * A failure is a non-fatal `MEMORY_FAILED` error event and never blocks a close. Default `100`.
   */
  consolidateAbove?: number;
}

/** Retry policy for retryable provider errors. */
export interface RetryConfig {
  /** Retries after the first attempt. Default `4`. */
  maxRetries?: number;
  /** Base of the exponential backoff. Default `500`. */
  initialDelayMs?: number;
  /** No wait is longer, not even a server's `Retry-After`. Default `30_000`. */
  maxDelayMs?: number;
}

/**
 * Human approval of tool calls.
 * @example
 * const approval: ApprovalConfig = {
 *   policy: ({ toolName }) => (toolName.startsWith('read_') ? 'allow' : undefined),
 *   timeoutMs: 5 * 60_000,
 * };
 */
export interface ApprovalConfig {
  /**
   * Asked first for every call with valid arguments: `'allow'` runs it, `'deny'` denies it,
   * `'ask'` waits for the user (unless a rule the user set for the session answers), `undefined`
   * leaves it to the session's rules and then the tool's `needsApproval`. Bounded by
   * `hookTimeoutMs`: a throw or timeout is reported (non-fatal `HOOK_FAILED`) and the user is asked.
   */
  policy?: ApprovalPolicy;
  /** A call nobody decided within this many ms is denied (`by: 'timeout'`). `0` waits forever. Default `0`. */
  timeoutMs?: number;
}

/**
 * The agent's settings, given to `new AgentBuilder(config)`.
 * @example
 * const config: AgentConfig = { defaultModel: 'gpt-4o-mini', systemInstructions: ['Be brief.'] };
 */
export interface AgentConfig {
  /** Model of sessions that name none; a registered provider must serve it. */
  defaultModel: string;
  /** Joined into the prompt's `<system_instructions>`. Default `[]`. */
  systemInstructions?: string[];
  /** A personality paragraph for the prompt. */
  personality?: string;
  /** Rendered each turn as `<environment_context>`; a function is called each turn. */
  environmentContext?: EnvironmentContextSource;
  /** A tool call's time limit in ms. Default `120_000`. */
  toolTimeoutMs?: number;
  /** Tool calls allowed per turn. Default `50`. */
  maxToolCallsPerTurn?: number;
  /**
   * Within one turn, a call with the same tool name and the same arguments (key order aside) as
   * this many earlier calls of the turn is not run: the model reads an error result saying so, and
   * the call still counts toward `maxToolCallsPerTurn` (not toward this limit). `0` turns the
   * guard off. Default `3`.
   */
  maxRepeatedToolCalls?: number;
  /** A hook handler's (and a plugin's `initialize`/`shutdown`) time limit in ms. Default `30_000`. */
  hookTimeoutMs?: number;
  /**
   * A `saveEvent` not settled after this many ms is reported (`STORAGE_ERROR`) and no longer
   * awaited, and the session stops persisting (the conversation goes on in memory). Default `30_000`.
   */
  storageTimeoutMs?: number;
  /**
   * No `ChatEvent` from the provider for this many ms (before the first one too) aborts the
   * request with a retryable `PROVIDER_ERROR` ("no data for N ms"). Default `60_000`.
   */
  streamIdleTimeoutMs?: number;
  /**
   * How long a tool source's `tools()` may take before a model request, and its `close()` at
   * shutdown. A late or failing source serves its last good list (or none), reported as a
   * non-fatal `TOOL_SOURCE_UNAVAILABLE`. Default `5_000`.
   */
  toolSourceTimeoutMs?: number;
  /** Context compaction. */
  compaction?: CompactionConfig;
  /** Long-term memory (needs a registered `MemoryStorage`). */
  memory?: MemoryConfig;
  /** Retries of retryable provider errors. */
  retry?: RetryConfig;
  /** Human approval of tool calls (`turn.approve` / `turn.deny`). */
  approval?: ApprovalConfig;
  /**
   * Cost and token budgets per turn and per session, checked before every request they count
   * (turn, compaction, memory): a request that would not fit is not sent. A turn then completes
   * with `finishReason: 'budget_exceeded'`; a compaction or memory extraction is skipped.
   */
  budget?: BudgetConfig;
  /** XState inspection observer, given to the root actor (sees Agent, Session and Turn). */
  inspect?: InspectionObserver;
  /**
   * The time source of timestamps, durations, retry waits and time limits. Default: the system
   * clock. Tests pass a manual one to run the agent without waiting on the wall clock.
   */
  clock?: Clock;
}

/** An {@link AgentConfig} after validation, every default filled in. */
export type ResolvedAgentConfig = z.infer<typeof AgentConfigSchema>;
