/**
 * The context meter: how full the model's window is, and where compaction starts.
 * @module
 */
import type { Conversation } from './schema.js';

/** The meter's value. */
export type ContextMeter = Conversation['context'];

/** What the meter reads. */
export interface ContextMeterSource {
  /**
   * Estimated tokens of the next request: the session's own estimate (about four characters a
   * token, corrected by the usage the provider last reported).
   */
  estimateTokens(): number;
  /** The model's window. */
  contextWindow: number;
  /** The compaction threshold for that window; the window itself when compaction is off. */
  compactAt: number;
}

/**
 * Measures the context; returns `previous` itself when nothing changed, so an unchanged meter
 * keeps its identity between emissions.
 */
export function measureContext(source: ContextMeterSource, previous: ContextMeter | null): ContextMeter {
  const estimatedTokens = source.estimateTokens();
  if (previous?.estimatedTokens === estimatedTokens) return previous;
  return { estimatedTokens, contextWindow: source.contextWindow, compactAt: source.compactAt };
}
