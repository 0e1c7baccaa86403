/**
 * `prepareRequest`: assembles the system prompt — the stable part cached per session (rebuilt
 * after compaction), the dynamic part per turn (memories, environment, dynamic sections) — and
 * decides whether the request is over the compaction threshold.
 * @module
 */
import * as z from 'zod/mini';
import { describeError, Errors } from '../../errors.js';
import { compactionThreshold } from '../../context/token-estimate.js';
import { buildDynamic, buildStable, combine } from '../../prompt/prompt-builder.js';
import type { SessionRuntime, TurnState } from '../session-runtime.js';
import { EnvironmentContextSchema } from '../../config.js';

/** The stable part of the prompt, built once per session and after each compaction. */
export function stablePrompt(rt: SessionRuntime): string {
  rt.stablePrompt ??= buildStable({
    systemInstructions: rt.services.config.systemInstructions,
    ...(rt.sessionConfig.systemPromptOverride !== undefined && {
      systemPromptOverride: rt.sessionConfig.systemPromptOverride,
    }),
    ...(rt.services.config.personality !== undefined && { personality: rt.services.config.personality }),
    skills: rt.services.skills.implicitSkills(),
    plugins: rt.services.plugins.descriptors(),
  });
  return rt.stablePrompt;
}

/** The environment context for this turn: resolved once per turn; a failing source is reported. */
async function environmentOf(
  rt: SessionRuntime,
  turn: TurnState,
): Promise<Record<string, string> | undefined> {
  if (turn.environment !== null) return turn.environment;
  const source = rt.services.config.environmentContext;
  let env: Record<string, string> | undefined;
  try {
    const value = typeof source === 'function' ? await source() : source;
    if (value !== undefined) {
      const parsed = z.safeParse(EnvironmentContextSchema, value);
      if (!parsed.success) throw new Error('environmentContext must be a record of strings');
      env = parsed.data;
    }
  } catch (error) {
    rt.reportError(turn.id, Errors.invalidInput(`environmentContext failed: ${describeError(error)}`, error));
  }
  turn.environment = env;
  return env;
}

/** Rebuilds the turn's system prompt from the stable and dynamic parts. */
export async function refreshSystemPrompt(rt: SessionRuntime, turn: TurnState): Promise<void> {
  const environment = await environmentOf(rt, turn);
  const dynamic = buildDynamic({
    memories: rt.memories,
    ...(environment !== undefined && { environmentContext: environment }),
    dynamicSections: turn.dynamicSections,
  });
  turn.systemPrompt = combine(stablePrompt(rt), dynamic);
}

/** Estimated tokens of the next request. */
export function estimateRequestTokens(rt: SessionRuntime, turn: TurnState): number {
  return rt.context.estimateTokens(turn.systemPrompt.length, rt.services.toolSpecsChars);
}

/** Runs the `preparing` step: prompt, then the compaction decision. */
export async function prepareRequest(
  rt: SessionRuntime,
  turn: TurnState,
): Promise<{ needsCompaction: boolean }> {
  await refreshSystemPrompt(rt, turn);
  const compaction = rt.services.config.compaction;
  if (!compaction.enabled || rt.compactionDisabled) return { needsCompaction: false };
  const threshold = compactionThreshold(rt.model.contextWindow, compaction);
  return { needsCompaction: estimateRequestTokens(rt, turn) > threshold };
}
