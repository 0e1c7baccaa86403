/**
 * `compactContext` (seed §10, phase-0 doc §4): micro-compaction first (old tool results →
 * placeholders, the latest `keepRecentToolResults` kept); if the request is still over the
 * threshold, summary compaction through the model (`before_compact` may skip it), keeping recent
 * messages worth about `keepRecentRatio` of the window and never splitting a tool call from its
 * result. Each compaction emits `context_compacted` and saves a `context_snapshot`. After
 * `maxConsecutiveFailures` failures in a row the breaker stops compaction for the session.
 * @module
 */
import { AgentError, describeError, Errors } from '../../errors.js';
import { nowIso } from '../../ids.js';
import { microCompact, recentSplitIndex } from '../../context/context-manager.js';
import { compactionThreshold } from '../../context/token-estimate.js';
import { COMPACTION_PROMPT, COMPACTION_SUMMARY_PREFIX } from '../../prompt/templates.js';
import type { SessionRuntime, TurnState } from '../session-runtime.js';
import { CONTEXT_SNAPSHOT_KEY } from '../../persistence/replay.js';
import type { Message, TokenUsage } from '../../types.js';
import { estimateRequestTokens, refreshSystemPrompt } from './prepare-request.js';
import { collectText } from '../../providers/collect-text.js';
import { costOf } from '../../providers/cost.js';

/** Applies a compacted history: context, snapshot, prompt cache, event. */
function applyCompaction(
  rt: SessionRuntime,
  turn: TurnState,
  messages: Message[],
  strategy: 'micro' | 'summary',
  tokensBefore: number,
  tokensAfter: number,
): void {
  rt.context.replace(messages);
  rt.writes.enqueue({
    timestamp: nowIso(),
    payload: { type: 'metadata', key: CONTEXT_SNAPSHOT_KEY, value: messages },
  });
  rt.hub.emit(turn.id, { type: 'context_compacted', tokensBefore, tokensAfter, strategy });
}

/** Summary compaction: asks the model to summarize everything but the recent messages. */
async function summarize(
  rt: SessionRuntime,
  turn: TurnState,
  signal: AbortSignal,
): Promise<{ messages: Message[]; usage: TokenUsage | null; cost: number | undefined } | null> {
  const all = rt.context.messages;
  const budget = Math.floor(rt.model.contextWindow * rt.services.config.compaction.keepRecentRatio);
  const split = recentSplitIndex(all, budget);
  if (split === 0) return null; // nothing old enough to summarize
  const older = all.slice(0, split);
  const { text, usage, cost } = await collectText(
    rt.provider,
    {
      model: rt.modelId,
      systemPrompt: COMPACTION_PROMPT,
      messages: [...older, { type: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] }],
      tools: [],
      purpose: 'compaction',
    },
    signal,
  );
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

/** Runs the `compacting` step. Never throws: failures feed the breaker and are reported. */
export async function compactContext(
  rt: SessionRuntime,
  turn: TurnState,
  signal: AbortSignal,
): Promise<{ usage: TokenUsage | null }> {
  const config = rt.services.config.compaction;
  const threshold = compactionThreshold(rt.model.contextWindow, config);
  let usage: TokenUsage | null = null;
  try {
    const before = estimateRequestTokens(rt, turn);
    const micro = microCompact(rt.context.messages, config.keepRecentToolResults);
    if (micro.cleared > 0) {
      const previous = rt.context.messages;
      rt.context.replace(micro.messages);
      const after = estimateRequestTokens(rt, turn);
      rt.context.replace(previous);
      applyCompaction(rt, turn, micro.messages, 'micro', before, after);
    }
    let current = estimateRequestTokens(rt, turn);
    if (current > threshold) {
      const hook = await rt.hook('before_compact', turn.id, {
        strategy: 'summary',
        tokensBefore: current,
        messageCount: rt.context.messages.length,
      });
      if (hook.aborted === null && !signal.aborted) {
        const summary = await summarize(rt, turn, signal);
        if (summary && !signal.aborted) {
          usage = summary.usage;
          // The summary is a model response too: its usage is reported, and counts in the turn's.
          if (usage) {
            const cost = summary.cost ?? (rt.model.pricing ? costOf(usage, rt.model.pricing) : undefined);
            rt.hub.emit(turn.id, { type: 'usage', usage, ...(cost !== undefined && { cost }) });
          }
          rt.context.replace(summary.messages);
          rt.stablePrompt = null;
          await refreshSystemPrompt(rt, turn);
          const after = estimateRequestTokens(rt, turn);
          applyCompaction(rt, turn, summary.messages, 'summary', current, after);
          current = after;
        }
      }
    }
    rt.compactionFailures = 0;
  } catch (error) {
    if (signal.aborted) return { usage };
    rt.compactionFailures++;
    rt.reportError(
      turn.id,
      AgentError.isInstance(error) && error.code === 'COMPACT_ERROR'
        ? error
        : Errors.compact(`compaction failed: ${describeError(error)}`, error),
    );
    if (rt.compactionFailures >= config.maxConsecutiveFailures) {
      rt.compactionDisabled = true;
      rt.reportError(
        turn.id,
        Errors.compact(
          `compaction failed ${rt.compactionFailures} times in a row; it is off for the rest of this session`,
        ),
      );
    }
  }
  return { usage };
}
