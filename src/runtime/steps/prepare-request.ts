/**
 * `prepareRequest`: builds the system prompt of the next request and decides whether the request
 * is over the compaction threshold. (Whether compaction may run at all — the breaker — is the
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
}

/** Runs the `preparing` step. */
export async function prepareRequest(scope: PrepareScope, input: PrepareInput): Promise<PrepareOutput> {
  if (scope.compactionThreshold === null) return { needsCompaction: false };
  const systemPrompt = await scope.prompt.build(input.dynamicSections);
  return { needsCompaction: scope.estimateTokens(systemPrompt) > scope.compactionThreshold };
}
