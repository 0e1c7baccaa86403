/**
 * Memory consolidation: when a namespace holds more than `consolidateAbove` memories, the model
 * is shown them and answers exactly `{ "memories": [{ "content", "tags"? }], "delete": [ids] }`
 * (validated with zod); the new memories are saved, then the listed ids deleted.
 * @module
 */
import * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { MemoryStorage } from '../ports/storage.js';
import { MEMORY_CONSOLIDATION_PROMPT, renderMemoryConsolidationInput } from '../prompt/memory-templates.js';
import { collectText } from '../providers/collect-text.js';
import type { ChatRequest, Memory, TokenUsage } from '../types.js';
import { MemoryDraftSchema, newMemory, parseJsonAnswer } from './model-answer.js';

/**
 * At most this many memories, the newest, are shown to the model: enough for a namespace just
 * past the default threshold of 100, and a prompt (and an answer) a small model can handle.
 */
export const CONSOLIDATION_MAX_MEMORIES = 200;

/** What the consolidation model must return. */
const ConsolidationAnswerSchema = z.strictObject({
  memories: z.array(MemoryDraftSchema),
  delete: z.array(z.string()),
});

/** Options of {@link consolidateMemories}. */
export interface ConsolidateOptions {
  provider: ModelProvider;
  model: string;
  storage: MemoryStorage;
  namespace: string;
  /** Recorded as the `sourceSessionId` of the memories it writes. */
  sessionId: string;
  /** Consolidate only when the namespace holds more memories than this. */
  consolidateAbove: number;
  signal: AbortSignal;
  /** Timestamps of the saved memories. */
  clock: Clock;
  /** Called with the usage of the model's answer as soon as it is in, whether or not it is valid. */
  onUsage(usage: TokenUsage, cost: number | undefined): void;
  /**
   * The request as the budgets allow it (`maxOutputTokens` clamped); `null` when they cannot pay
   * for it: then nothing is asked and nothing changes. Default: sent as it is.
   */
  admit?(request: ChatRequest): ChatRequest | null;
}

/** What a consolidation changed. */
export interface ConsolidationResult {
  saved: Memory[];
  deleted: string[];
}

/**
 * Consolidates the namespace if it holds more than `consolidateAbove` memories; `null` when it
 * does not, or when the budgets cannot pay for the request (no model call).
 *
 * How many it holds: the storage port can only search, so the newest `consolidateAbove + 1` are
 * read to learn whether the namespace is over; if so, the newest {@link CONSOLIDATION_MAX_MEMORIES}
 * are listed for the model with their ids. Saves come before deletes, so a failure part-way leaves
 * duplicates, never a lost memory. Any failure rejects with `MEMORY_FAILED`.
 *
 * @example
 * const result = await consolidateMemories({ provider, model: 'gpt-4o-mini', storage,
 *   namespace: 'alice', sessionId, consolidateAbove: 100, signal, onUsage: () => {} });
 * result?.deleted; // ids the model merged away or dropped
 */
export async function consolidateMemories(options: ConsolidateOptions): Promise<ConsolidationResult | null> {
  const { storage, namespace, consolidateAbove } = options;
  try {
    const probe = await storage.search(namespace, '', consolidateAbove + 1);
    if (probe.length <= consolidateAbove) return null;
    const listed =
      probe.length >= CONSOLIDATION_MAX_MEMORIES
        ? probe.slice(0, CONSOLIDATION_MAX_MEMORIES)
        : await storage.search(namespace, '', CONSOLIDATION_MAX_MEMORIES);

    const request: ChatRequest = {
      model: options.model,
      systemPrompt: MEMORY_CONSOLIDATION_PROMPT,
      messages: [{ type: 'user', content: [{ type: 'text', text: renderMemoryConsolidationInput(listed) }] }],
      tools: [],
      purpose: 'memory_consolidation',
    };
    const admitted = options.admit ? options.admit(request) : request;
    if (!admitted) return null;
    const { text, usage, cost } = await collectText(options.provider, admitted, options.signal);
    if (usage) options.onUsage(usage, cost);

    const parsed = z.safeParse(ConsolidationAnswerSchema, parseJsonAnswer(text));
    if (!parsed.success) {
      throw new Error('the answer does not match {"memories":[{"content","tags"?}],"delete":[ids]}');
    }
    const saved: Memory[] = [];
    for (const draft of parsed.data.memories) {
      const memory = newMemory(draft, namespace, options.sessionId, options.clock);
      await storage.save(memory);
      saved.push(memory);
    }
    // Only ids of the memories the model was shown are deleted. `delete(id)` is not scoped to a
    // namespace, so an id the model invented or copied from elsewhere could otherwise remove a
    // memory of another namespace (another user's); such ids are ignored.
    const shown = new Set(listed.map((memory) => memory.id));
    const deleted = [...new Set(parsed.data.delete)].filter((id) => shown.has(id));
    for (const id of deleted) await storage.delete(id);
    return { saved, deleted };
  } catch (error) {
    if (AgentError.isInstance(error) && error.code === 'MEMORY_FAILED') throw error;
    throw Errors.memoryFailed(`memory consolidation failed: ${describeError(error)}`, error);
  }
}
