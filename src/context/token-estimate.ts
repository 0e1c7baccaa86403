/**
 * Token estimates for compaction decisions: about four characters per token,
 * corrected by the usage the provider last reported. Images count as a fixed cost: their base64
 * length says nothing about the tokens a model spends on them.
 * @module
 */
import type { CompactionConfig } from '../config.js';
import type { Message } from '../types.js';

/** Characters an image is counted as (≈ 750 tokens). */
export const IMAGE_CHARS = 3_000;

/** Characters of one message, as the estimate counts them. */
export function messageChars(message: Message): number {
  switch (message.type) {
    case 'user':
    case 'assistant': {
      let n = 0;
      for (const block of message.content) n += block.type === 'text' ? block.text.length : IMAGE_CHARS;
      return n;
    }
    case 'tool_call':
      return (
        message.toolName.length +
        (typeof message.arguments === 'string'
          ? message.arguments.length
          : (JSON.stringify(message.arguments) ?? '').length)
      );
    case 'tool_result':
    case 'system':
      return message.content.length;
  }
}

/** `chars / 4`, rounded up. */
export function charsToTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/**
 * The token count above which a window of `contextWindow` tokens is compacted:
 * `min(W × thresholdRatio, W − min(reservedOutputTokens, W/4) − min(bufferTokens, W/10))`.
 * The reserve and buffer shrink on small windows (2,000 → 1,300; 128k → 95k; 200k → 160k).
 */
export function compactionThreshold(
  contextWindow: number,
  config: Required<Pick<CompactionConfig, 'thresholdRatio' | 'reservedOutputTokens' | 'bufferTokens'>>,
): number {
  const w = contextWindow;
  const reserve = Math.min(config.reservedOutputTokens, w / 4);
  const buffer = Math.min(config.bufferTokens, w / 10);
  return Math.floor(Math.min(w * config.thresholdRatio, w - reserve - buffer));
}
