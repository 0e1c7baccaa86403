/**
 * The check of a provider's `usage` event, by hand: `TokenUsageSchema`'s rule (a strict object of
 * non-negative safe integers, two counters optional) without a zod parse on every response.
 * @module
 */
import type { TokenUsage } from '../../types.js';

const REQUIRED = ['inputTokens', 'outputTokens', 'totalTokens'] as const;
const OPTIONAL = ['cachedInputTokens', 'reasoningTokens'] as const;
const KNOWN: ReadonlySet<string> = new Set([...REQUIRED, ...OPTIONAL]);

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * `value` as a {@link TokenUsage} (a fresh object with the counters in the schema's order), or
 * `null` when `TokenUsageSchema` would reject it: not an object, an unknown key, a required
 * counter missing, or a counter that is not a non-negative safe integer. An optional counter
 * present as `undefined` is kept, as the schema keeps it.
 */
export function readTokenUsage(value: unknown): TokenUsage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const usage = value as Record<string, unknown>;
  for (const key of Object.keys(usage)) if (!KNOWN.has(key)) return null;
  const { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, totalTokens } = usage;
  if (!isCount(inputTokens) || !isCount(outputTokens) || !isCount(totalTokens)) return null;
  if ('cachedInputTokens' in usage && cachedInputTokens !== undefined && !isCount(cachedInputTokens))
    return null;
  if ('reasoningTokens' in usage && reasoningTokens !== undefined && !isCount(reasoningTokens)) return null;
  const read: Partial<TokenUsage> = { inputTokens, outputTokens };
  if ('cachedInputTokens' in usage) read.cachedInputTokens = cachedInputTokens as number | undefined;
  if ('reasoningTokens' in usage) read.reasoningTokens = reasoningTokens as number | undefined;
  read.totalTokens = totalTokens;
  return read as TokenUsage;
}
