/**
 * One non-streamed use of a provider (compaction summaries, memory extraction): collects the
 * text and the usage of a response. Deltas are not published — these requests are internal.
 * @module
 */
import { toAgentError } from '../errors.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { ChatRequest, TokenUsage } from '../types.js';

/** The text and usage of one response; provider failures reject as `PROVIDER_ERROR`. */
export async function collectText(
  provider: ModelProvider,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<{ text: string; usage: TokenUsage | null; cost: number | undefined }> {
  let text = '';
  let usage: TokenUsage | null = null;
  let cost: number | undefined;
  try {
    for await (const event of provider.chat(request, signal)) {
      if (event.type === 'text_delta') text += event.text;
      else if (event.type === 'usage') {
        usage = event.usage;
        cost = event.cost;
      }
    }
  } catch (error) {
    throw toAgentError(error, 'PROVIDER_ERROR', { source: 'provider' });
  }
  return { text, usage, cost };
}
