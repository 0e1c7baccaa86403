/**
 * `compactContext`: micro-compaction first (old tool results → placeholders, the latest
 * `keepRecentToolResults` kept); if the request is still over the threshold, summary compaction
 * through the model (`before_compact` may skip it), keeping recent messages worth about
 * `keepRecentRatio` of the window and never splitting a tool call from its result. Each
 * compaction emits `context_compacted` and saves a `context_snapshot`, so a resume starts from
 * the compacted history. The step returns the breaker's new count: 0 after a success, one more
 * after a failure; at `maxCompactionFailures` it says that compaction is off for the session.
 *
 * The summary request is held to the turn's and the session's budgets like a turn request: its
 * `maxOutputTokens` clamped to what is left, or — when they cannot pay for it — not sent. Then the
 * turn goes on as after a failed compaction (the turn's own budget check decides whether its
 * request goes out), but the breaker's count is left as it was: a budget that is spent says
 * nothing about whether compaction works, and must not switch it off for the session.
 * @module
 */
import type { CompactInput, CompactOutput } from '../../../machines/turn.types.js';
import { admitRequest, type BudgetCheck } from '../../budget/check-request.js';
import { microCompact, recentSplitIndex } from '../../context/context-manager.js';
import { AgentError, describeError } from '../../errors.js';
import * as Errors from '../../error-constructors.js';
import { CONTEXT_SNAPSHOT_KEY } from '../../persistence/metadata-keys.js';
import type { ModelProvider } from '../../ports/model-provider.js';
import { collectText } from '../../providers/collect-text.js';
import { responseCost } from '../../providers/cost.js';
import type { SessionPrompt, TurnPrompt } from '../../prompt/session-prompt.js';
import { COMPACTION_PROMPT, COMPACTION_SUMMARY_PREFIX } from '../../prompt/templates.js';
import type {
  AgentEventPayload,
  ChatRequest,
  Message,
  ModelInfo,
  SessionEventPayload,
  TokenUsage,
} from '../../types.js';
import type { HookCaller } from '../session-scope.js';

/** What `compactContext` uses. */
export interface CompactScope {
  provider: ModelProvider;
  model: ModelInfo;
  history: { readonly messages: readonly Message[]; replace(messages: readonly Message[]): void };
  prompt: Pick<TurnPrompt, 'build'>;
  /** The session's stable prompt cache, invalidated after a summary. */
  sessionPrompt: Pick<SessionPrompt, 'invalidate'>;
  /** Estimated tokens of a request with this system prompt and these messages (default: the history). */
  estimateTokens(systemPrompt: string, messages?: readonly Message[]): number;
  threshold: number;
  keepRecentToolResults: number;
  keepRecentRatio: number;
  hook: HookCaller;
  /** The budgets the summary request is held to (they report when they cannot pay for it). */
  budget: BudgetCheck;
  emit(payload: AgentEventPayload): void;
  report(error: AgentError): void;
  record(payload: SessionEventPayload): void;
}

/** The budgets could not pay for the summary: no request was made. */
const OVER_BUDGET = 'over budget';

/** Runs the `compacting` step. Never throws: a failure feeds the breaker and is reported. */
export async function compactContext(
  scope: CompactScope,
  input: CompactInput,
  signal: AbortSignal,
): Promise<CompactOutput> {
  let usage: TokenUsage | null = null;
  try {
    let systemPrompt = await scope.prompt.build(input.dynamicSections);
    const before = scope.estimateTokens(systemPrompt);
    const micro = microCompact(scope.history.messages, scope.keepRecentToolResults);
    if (micro.cleared > 0) {
      apply(scope, micro.messages, 'micro', before, scope.estimateTokens(systemPrompt, micro.messages));
    }
    const current = scope.estimateTokens(systemPrompt);
    if (current > scope.threshold) {
      const hook = await scope.hook('before_compact', {
        strategy: 'summary',
        tokensBefore: current,
        messageCount: scope.history.messages.length,
      });
      if (hook.aborted === null && !signal.aborted) {
        const summary = await summarize(scope, signal);
        if (summary === OVER_BUDGET) return { usage, compactionFailures: input.compactionFailures };
        if (summary && !signal.aborted) {
          usage = summary.usage;
          // The summary is a model response too: its usage is reported, and counts in the turn's.
          if (usage) {
            const cost = responseCost(usage, summary.cost, scope.model.pricing);
            scope.emit({ type: 'usage', usage, ...(cost !== undefined && { cost }) });
          }
          scope.sessionPrompt.invalidate();
          systemPrompt = await scope.prompt.build(input.dynamicSections);
          apply(
            scope,
            summary.messages,
            'summary',
            current,
            scope.estimateTokens(systemPrompt, summary.messages),
          );
        }
      }
    }
    return { usage, compactionFailures: 0 };
  } catch (error) {
    if (signal.aborted) return { usage, compactionFailures: input.compactionFailures };
    const failures = input.compactionFailures + 1;
    scope.report(
      AgentError.isInstance(error) && error.code === 'COMPACT_ERROR'
        ? error
        : Errors.compact(`compaction failed: ${describeError(error)}`, error),
    );
    if (failures >= input.maxCompactionFailures) {
      scope.report(
        Errors.compact(
          `compaction failed ${failures} times in a row; it is off for the rest of this session`,
        ),
      );
    }
    return { usage, compactionFailures: failures };
  }
}

/** Puts a compacted history in place: history, snapshot record, event. */
function apply(
  scope: CompactScope,
  messages: Message[],
  strategy: 'micro' | 'summary',
  tokensBefore: number,
  tokensAfter: number,
): void {
  scope.history.replace(messages);
  scope.record({ type: 'metadata', key: CONTEXT_SNAPSHOT_KEY, value: messages });
  scope.emit({ type: 'context_compacted', tokensBefore, tokensAfter, strategy });
}

/** Summary compaction: asks the model to summarize everything but the recent messages. */
async function summarize(
  scope: CompactScope,
  signal: AbortSignal,
): Promise<
  { messages: Message[]; usage: TokenUsage | null; cost: number | undefined } | typeof OVER_BUDGET | null
> {
  const all = scope.history.messages;
  const split = recentSplitIndex(all, Math.floor(scope.model.contextWindow * scope.keepRecentRatio));
  if (split === 0) return null; // nothing old enough to summarize
  const request: ChatRequest = {
    model: scope.model.id,
    systemPrompt: COMPACTION_PROMPT,
    messages: [
      ...all.slice(0, split),
      { type: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] },
    ],
    tools: [],
    purpose: 'compaction',
  };
  const admitted = admitRequest(scope.budget, request, scope.model.pricing);
  if (!admitted) return OVER_BUDGET;
  const { text, usage, cost } = await collectText(scope.provider, admitted, signal);
  if (!text.trim()) throw Errors.compact('the model returned an empty summary');
  return {
    messages: [
      { type: 'system', content: `${COMPACTION_SUMMARY_PREFIX}\n\n${text.trim()}` },
      ...all.slice(split),
    ],
    usage,
    cost,
  };
}
