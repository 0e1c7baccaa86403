/**
 * Long-term memory: memories are loaded into the dynamic prompt at session start and
 * resume, and extracted by the model at close and every `checkpointInterval` turns. The model
 * must answer exactly `{ "memories": [ { "content": string, "tags"?: string[] } ] }` (validated
 * with zod); failures are reported as `MEMORY_FAILED` and never block a close.
 * @module
 */
import * as z from 'zod/mini';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { Clock } from '../clock.js';
import { collectText } from '../providers/collect-text.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { MemoryStorage } from '../ports/storage.js';
import { MEMORY_EXTRACTION_PROMPT, renderMemoryExtractionInput } from '../prompt/memory-templates.js';
import type { ChatRequest, Memory, Message, TokenUsage } from '../types.js';
import { MemoryDraftSchema, newMemory, parseJsonAnswer } from './model-answer.js';

/** What the extraction model must return. */
const ExtractionOutputSchema = z.strictObject({ memories: z.array(MemoryDraftSchema) });

/** The newest memories of a namespace (an empty query returns the newest). */
export async function loadMemories(
  storage: MemoryStorage,
  namespace: string,
  maxItems: number,
): Promise<Memory[]> {
  try {
    return await storage.search(namespace, '', maxItems);
  } catch (error) {
    throw Errors.memoryFailed(`loading memories failed: ${describeError(error)}`, error);
  }
}

/** Renders a history as plain text for the extraction prompt. */
function renderTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    switch (m.type) {
      case 'user':
      case 'assistant': {
        const text = m.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mediaType}]`)).join('\n');
        lines.push(`${m.type === 'user' ? 'User' : 'Assistant'}: ${text}`);
        break;
      }
      case 'tool_call':
        lines.push(
          `Tool call ${m.toolName}: ${typeof m.arguments === 'string' ? m.arguments : JSON.stringify(m.arguments)}`,
        );
        break;
      case 'tool_result':
        lines.push(`Tool result${m.isError ? ' (error)' : ''}: ${m.content}`);
        break;
      case 'system':
        lines.push(`System: ${m.content}`);
        break;
    }
  }
  return lines.join('\n\n');
}

/** Options of {@link extractMemories}. */
export interface ExtractOptions {
  provider: ModelProvider;
  model: string;
  storage: MemoryStorage;
  namespace: string;
  sessionId: string;
  messages: readonly Message[];
  /** Memories already known (the model is told not to repeat them). */
  existing: readonly Memory[];
  signal: AbortSignal;
  /** Timestamps of the saved memories. */
  clock: Clock;
  /** Called with the usage of the model's answer as soon as it is in, whether or not it is valid. */
  onUsage(usage: TokenUsage, cost: number | undefined): void;
  /**
   * The request as the budgets allow it (`maxOutputTokens` clamped); `null` when they cannot pay
   * for it: then nothing is asked and nothing saved. Default: sent as it is.
   */
  admit?(request: ChatRequest): ChatRequest | null;
}

/** Asks the model for memories worth keeping and saves them. */
export async function extractMemories(options: ExtractOptions): Promise<Memory[]> {
  const transcript = renderTranscript(options.messages);
  if (!transcript.trim()) return [];
  try {
    const request: ChatRequest = {
      model: options.model,
      systemPrompt: MEMORY_EXTRACTION_PROMPT,
      messages: [
        {
          type: 'user',
          content: [
            {
              type: 'text',
              text: renderMemoryExtractionInput({
                transcript,
                existingMemories: options.existing.map((m) => m.content),
              }),
            },
          ],
        },
      ],
      tools: [],
      purpose: 'memory_extraction',
    };
    const admitted = options.admit ? options.admit(request) : request;
    if (!admitted) return [];
    const { text, usage, cost } = await collectText(options.provider, admitted, options.signal);
    if (usage) options.onUsage(usage, cost);
    const parsed = z.safeParse(ExtractionOutputSchema, parseJsonAnswer(text));
    if (!parsed.success) throw new Error('the answer does not match {"memories":[{"content","tags"?}]}');
    const saved: Memory[] = [];
    for (const draft of parsed.data.memories) {
      const memory = newMemory(draft, options.namespace, options.sessionId, options.clock);
      await options.storage.save(memory);
      saved.push(memory);
    }
    return saved;
  } catch (error) {
    if (AgentError.isInstance(error) && error.code === 'MEMORY_FAILED') throw error;
    throw Errors.memoryFailed(`memory extraction failed: ${describeError(error)}`, error);
  }
}
