/**
 * Each step's narrow scope, cut from the session's parts and the side channels of its turn. A
 * step sees only what its scope type declares, so what feeds a step is visible in one place and
 * each step can be unit-tested with plain objects.
 * @module
 */
import { compactionThreshold } from '../context/token-estimate.js';
import type { MemoryScope } from '../memory/extraction.js';
import { TOOL_STARTED_KEY } from '../persistence/metadata-keys.js';
import { NO_SOURCED_TOOLS } from '../tools/tool-sources.js';
import type { Message, ToolSpec } from '../types.js';
import type { SessionScope } from './session-scope.js';
import type { ApprovalsScope, CancelApprovalsScope } from './steps/await-approvals.js';
import { sessionBudget } from '../budget/budget-config.js';
import { admitRequest, type BudgetCheck } from '../budget/check-request.js';
import { unwrapAnswer } from '../output/final-answer.js';
import { PartialOutput } from '../output/partial-output.js';
import type { CheckBudgetScope } from './steps/check-budget.js';
import type { CloseSessionScope } from './steps/close-session.js';
import type { CompactScope } from './steps/compact-context.js';
import type { EndTurnScope } from './steps/end-turn.js';
import type { OpenSessionScope } from './steps/open-session.js';
import type { PrepareScope } from './steps/prepare-request.js';
import type { ResumeTurnScope } from './steps/resume-turn.js';
import { closeInterruptedTurn, interruptedTurnView } from './interrupted-turn.js';
import type { StartTurnScope } from './steps/start-turn.js';
import type { StreamScope } from './steps/stream-model.js';
import type { ReviewScope } from './steps/review-tool-calls.js';
import type { ToolBatchScope } from './steps/run-tool-batch.js';
import type { ValidateOutputScope } from './steps/validate-output.js';
import type { RetryScope } from './steps/wait-to-retry.js';
import type { TurnRun } from './turn-run.js';

/** Events, reports and hooks of one turn. */
function turnChannel(session: SessionScope, turn: TurnRun) {
  return {
    emit: (payload: Parameters<SessionScope['events']['emit']>[1]) =>
      void session.events.emit(turn.id, payload),
    report: (error: Parameters<SessionScope['report']>[1]) => session.report(turn.id, error),
    hook: session.hooks(turn.id),
  };
}

function estimator(session: SessionScope, turn: TurnRun) {
  return (systemPrompt: string, messages?: readonly Message[]) =>
    session.history.estimateTokens(
      systemPrompt.length,
      session.services.toolSpecsChars + turn.sourcedTools.specsChars,
      messages,
    );
}

/** The request's tool specs: the registered tools', then the tool sources'. */
function requestToolSpecs(session: SessionScope, turn: TurnRun): readonly ToolSpec[] {
  const { specs } = turn.sourcedTools;
  return specs.length === 0 ? session.services.tools.specs : [...session.services.tools.specs, ...specs];
}

/** Resolves the tool sources' tools into the turn's side channel, reporting into the turn. */
function sourcedToolsResolver(session: SessionScope, turn: TurnRun) {
  const sources = session.services.toolSources;
  return async (signal: AbortSignal) => {
    if (sources.size === 0) return;
    turn.sourcedTools = await sources.resolve(signal, {
      report: (error) => session.report(turn.id, error),
      turn: turn.unavailableSources,
      session: sources.sessionReports(session),
    });
  };
}

/**
 * The budgets of a request of `turn` (`null`: outside a turn, only the session's apply); its
 * reports go to the turn, or to the session. `COST_UNKNOWN` is reported once per `Session` object.
 */
function budgetCheck(
  session: SessionScope,
  turn: TurnRun | null,
  report: (error: Parameters<SessionScope['report']>[1]) => void = (error) =>
    session.report(turn?.id ?? null, error),
): BudgetCheck {
  return {
    turn: () => turn && { limits: turn.options.budget, spent: turn.spent },
    session: () => ({ limits: sessionBudget(session.services.config.budget), spent: session.spent }),
    reportCostUnknownOnce: (error) => {
      if (session.costUnknownReported) return;
      session.costUnknownReported = true;
      session.report(turn?.id ?? null, error);
    },
    report,
  };
}

/** The session's memory work, or `null` without memory config or storage. */
function memoryScope(session: SessionScope): MemoryScope | null {
  const { config, memoryStorage, providers } = session.services;
  if (!config.memory || !memoryStorage) return null;
  // Memory responses are counted outside any turn: only the session's budgets hold them.
  const budget = budgetCheck(session, null);
  return {
    sessionId: session.id,
    config: config.memory,
    storage: memoryStorage,
    modelId: session.modelId,
    resolveModel: (modelId) => {
      const resolved = providers.resolve(modelId);
      return { ...resolved, provider: session.watched(resolved.provider) };
    },
    clock: session.clock,
    admit: (request, pricing) => admitRequest(budget, request, pricing),
    emit: (payload) => void session.events.emit(null, payload),
    report: (error) => session.report(null, error),
  };
}

/**
 * The memory work, loaded on first use: an agent without memory config never runs it, so a
 * bundler that splits code keeps it (and its prompts) out of the app's initial chunk.
 */
const memoryWork = () => import('../memory/extraction.js');

/** Extraction over the session's current history, or `null` without memory. */
function memoryExtraction(session: SessionScope) {
  const scope = memoryScope(session);
  if (!scope) return null;
  return async (signal: AbortSignal) =>
    (await memoryWork()).runMemoryExtraction(
      scope,
      session.history.messages,
      session.prompt.memories,
      signal,
    );
}

export function startTurnScope(session: SessionScope, turn: TurnRun): StartTurnScope {
  // A continued turn resumes instead: its user message is already in the history.
  if (turn.input === null) throw new Error(`turn '${turn.id}' has no user input to start with`);
  return {
    input: turn.input,
    hook: session.hooks(turn.id),
    skills: session.services.skills,
    append: (message) => session.append(message),
    record: (payload) => session.record(payload),
  };
}

export function resumeScope(session: SessionScope, turn: TurnRun): ResumeTurnScope {
  const { emit, hook } = turnChannel(session, turn);
  return {
    takeInterrupted: () => {
      const loaded = session.interrupted;
      if (!loaded) return null;
      const view = interruptedTurnView(loaded, (name) => session.services.tools.isMutating(name));
      closeInterruptedTurn(session, 'continue');
      return { loaded, view };
    },
    continuation: turn.continuation ?? { rerunMaybeExecuted: false },
    hook,
    emit,
    append: (message) => session.append(message),
    pendingCalls: turn.pendingCalls,
  };
}

export function prepareScope(session: SessionScope, turn: TurnRun): PrepareScope {
  const { compaction } = session.services.config;
  return {
    prompt: turn.prompt,
    estimateTokens: estimator(session, turn),
    // No tool source, nothing to wait for before each request.
    resolveSourcedTools: session.services.toolSources.size === 0 ? null : sourcedToolsResolver(session, turn),
    compactionThreshold: compaction.enabled
      ? compactionThreshold(session.model.contextWindow, compaction)
      : null,
  };
}

export function compactScope(session: SessionScope, turn: TurnRun): CompactScope {
  const { compaction } = session.services.config;
  return {
    ...turnChannel(session, turn),
    provider: session.provider,
    model: session.model,
    history: session.history,
    prompt: turn.prompt,
    sessionPrompt: session.prompt,
    estimateTokens: estimator(session, turn),
    threshold: compactionThreshold(session.model.contextWindow, compaction),
    keepRecentToolResults: compaction.keepRecentToolResults,
    keepRecentRatio: compaction.keepRecentRatio,
    // A summary the budgets cannot pay for is reported once a turn, not at every round.
    budget: budgetCheck(session, turn, (error) => {
      if (turn.compactionOverBudget) return;
      turn.compactionOverBudget = true;
      session.report(turn.id, error);
    }),
    record: (payload) => session.record(payload),
  };
}

export function streamScope(session: SessionScope, turn: TurnRun): StreamScope {
  const { emit, hook } = turnChannel(session, turn);
  const { output } = turn.options;
  return {
    provider: session.provider,
    model: session.model,
    prompt: turn.prompt,
    history: session.history,
    append: (message) => session.append(message),
    tools: output ? [...requestToolSpecs(session, turn), output.spec] : requestToolSpecs(session, turn),
    draft: turn.draft,
    checkpointDraft: session.drafts.enabled ? (text) => session.drafts.note(turn.id, text) : null,
    clearDraft: () => void session.drafts.clear(),
    pendingCalls: turn.pendingCalls,
    idleTimeoutMs: session.services.config.streamIdleTimeoutMs,
    hook,
    emit,
    clock: session.clock,
    partialOutput:
      output &&
      (turn.partialOutput ??= new PartialOutput(
        session.clock,
        (partial) => unwrapAnswer(output, partial),
        (partial) => emit({ type: 'output_delta', partial }),
      )),
  };
}

export function checkBudgetScope(session: SessionScope, turn: TurnRun): CheckBudgetScope {
  return {
    model: session.model,
    prompt: turn.prompt,
    estimateTokens: estimator(session, turn),
    budget: budgetCheck(session, turn),
  };
}

export function validateOutputScope(session: SessionScope, turn: TurnRun): ValidateOutputScope {
  const output = turn.options.output;
  if (!output) throw new Error(`turn '${turn.id}' validates an output it did not ask for`);
  return {
    output,
    pendingCalls: turn.pendingCalls,
    append: (message) => session.append(message),
    record: (payload) => session.record(payload),
    emit: (payload) => void session.events.emit(turn.id, payload),
    keep: (value) => (turn.output = { value }),
  };
}

export function retryScope(session: SessionScope, turn: TurnRun, random: () => number): RetryScope {
  const { hook, emit } = turnChannel(session, turn);
  return { retry: session.services.config.retry, random, clock: session.clock, hook, emit };
}

export function reviewScope(session: SessionScope, turn: TurnRun): ReviewScope {
  const { emit, report } = turnChannel(session, turn);
  const { config, tools } = session.services;
  return {
    // The request's source tools (MCP) are asked about like registered ones.
    tools: {
      tool: (name) => tools.tool(name, turn.sourcedTools.byName),
      validArguments: (call) => tools.validArguments(call, turn.sourcedTools.byName),
    },
    pendingCalls: turn.pendingCalls,
    policy: config.approval.policy,
    rules: session.approvalRules,
    hookTimeoutMs: config.hookTimeoutMs,
    clock: session.clock,
    record: (payload) => session.record(payload),
    emit,
    report,
  };
}

export function approvalsScope(session: SessionScope, turn: TurnRun): ApprovalsScope {
  return {
    ...cancelApprovalsScope(session, turn),
    pendingCalls: turn.pendingCalls,
    rules: session.approvalRules,
    timeoutMs: session.services.config.approval.timeoutMs,
    drainWrites: () => session.writes.drain(),
  };
}

export function cancelApprovalsScope(session: SessionScope, turn: TurnRun): CancelApprovalsScope {
  return {
    desk: turn.approvals,
    clock: session.clock,
    record: (payload) => session.record(payload),
    emit: turnChannel(session, turn).emit,
  };
}

export function toolBatchScope(session: SessionScope, turn: TurnRun): ToolBatchScope {
  const { emit, report } = turnChannel(session, turn);
  return {
    tools: toolsOfRequest(session, turn),
    pendingCalls: turn.pendingCalls,
    cancelSignal: turn.toolCancel.signal,
    mayStart: session.holding,
    emit,
    report,
    append: (message) => session.append(message),
    maxRepeats: session.services.config.maxRepeatedToolCalls,
    callKeys: turn.callKeys,
    markStarted: (callId) => {
      session.record({ type: 'metadata', key: TOOL_STARTED_KEY, value: { turnId: turn.id, callId } });
      return session.writes.drain();
    },
  };
}

/** The dispatcher, finding the current request's source tools by name too. */
function toolsOfRequest(session: SessionScope, turn: TurnRun): ToolBatchScope['tools'] {
  const { tools, toolSources } = session.services;
  if (toolSources.size === 0) return tools;
  return {
    runBatch: async (calls, ctx) => {
      // A continued turn runs its calls before any request was prepared in this page's life.
      if (turn.sourcedTools === NO_SOURCED_TOOLS && calls.some((call) => !tools.has(call.toolName))) {
        await sourcedToolsResolver(session, turn)(ctx.cancelSignal);
      }
      return tools.runBatch(calls, { ...ctx, sourcedTools: turn.sourcedTools.byName });
    },
  };
}

export function endTurnScope(session: SessionScope, turn: TurnRun): EndTurnScope {
  return {
    draft: turn.draft,
    history: session.history,
    append: (message, persist) => session.append(message, persist),
    record: (payload) => session.record(payload),
    drainWrites: () => session.writes.drain(),
    clearDraft: () => session.drafts.clear(),
    extractMemories: memoryExtraction(session),
    hook: session.hooks(turn.id),
    turnCost: () => turn.spent.cost,
  };
}

export function openSessionScope(session: SessionScope): OpenSessionScope {
  const memory = memoryScope(session);
  return {
    sessionConfig: session.sessionConfig,
    record: (payload) => session.record(payload),
    hook: session.hooks(null),
    loadMemories: memory && (async () => (await memoryWork()).loadSessionMemories(memory)),
    useMemories: (memories) => session.prompt.useMemories(memories),
    report: (error) => session.report(null, error),
  };
}

export function closeSessionScope(session: SessionScope): CloseSessionScope {
  return {
    hook: session.hooks(null),
    extractMemories: memoryExtraction(session),
    drainWrites: () => session.writes.drain(),
  };
}
