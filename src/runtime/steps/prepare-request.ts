/**
 * `prepareRequest`: resolves the tool sources' tools of the next request, builds its system prompt
 * and decides whether the request is over the compaction threshold. (Whether compaction may run at all — the breaker — is the
 * chart's guard.)
 * @module
 */
import type { PrepareInput, PrepareOutput } from '../../../machines/turn.types.js';
import type { TurnPrompt } from '../../prompt/session-prompt.js';

/** What `prepareRequest` uses. */
export interface PrepareScope {
  prompt: Pick<TurnPrompt, 'build'>;
  /** Estimated tokens of a request with this system prompt and the current history. */
  estimateTokens(systemPrompt: string): number;
  /** `null` when compaction is off. */
  compactionThreshold: number | null;
  /**
   * Asks the tool sources for this request's tools (before the estimate, which counts them);
   * `null` when no tool source is registered.
   */
  resolveSourcedTools: ((signal: AbortSignal) => Promise<void>) | null;
}

/** Runs the `preparing` step. */
export async function prepareRequest(
  scope: PrepareScope,
  input: PrepareInput,
  signal: AbortSignal,
): Promise<PrepareOutput> {
  if (scope.resolveSourcedTools !== null) await scope.resolveSourcedTools(signal);
  if (scope.compactionThreshold === null) return { needsCompaction: false };
  const systemPrompt = await scope.prompt.build(input.dynamicSections);
  return { needsCompaction: scope.estimateTokens(systemPrompt) > scope.compactionThreshold };
}
