/**
 * A session's memory work: loading its memories when it opens, and extraction — at a checkpoint
 * (a completed turn `checkpointInterval` turns after the last one) and at close — followed by a
 * consolidation when the namespace has grown past `consolidateAbove`. The usage of each model
 * call is reported in a `usage` event with `turnId: null`; a failure is a non-fatal
 * `MEMORY_FAILED` error event and never blocks the turn or the close. Both requests are held to
 * the session's budgets (they belong to no turn): clamped to what is left, or skipped with a
 * non-fatal `BUDGET_EXCEEDED` when the budgets cannot pay for them.
 * @module
 */
import type { Clock } from '../clock.js';
import type { MemoryConfig } from '../config.js';
import { toAgentError, type AgentError } from '../errors.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { MemoryStorage } from '../ports/storage.js';
import { responseCost } from '../providers/cost.js';
import type {
  AgentEventPayload,
  ChatRequest,
  Memory,
  Message,
  ModelInfo,
  ModelPricing,
  TokenUsage,
} from '../types.js';
import { consolidateMemories } from './consolidation.js';
import { extractMemories, loadMemories } from './memory-manager.js';

/** What memory work uses. `null` config or storage: memory is off and every call is a no-op. */
export interface MemoryScope {
  sessionId: string;
  config: Required<Pick<MemoryConfig, 'namespace' | 'maxItems' | 'consolidateAbove'>> &
    Pick<MemoryConfig, 'extractionModel'>;
  storage: MemoryStorage;
  /** The session's model (extraction uses it unless `extractionModel` is set). */
  modelId: string;
  resolveModel(modelId: string): { provider: ModelProvider; model: ModelInfo };
  clock: Clock;
  /**
   * Holds a request to the session's budgets: the request as it may be sent (clamped), or `null`
   * when they cannot pay for it (reported). The caller's: this work is loaded by `import()`, and
   * every module it imports is one a bundler without code splitting wraps in a lazy initialiser.
   */
  admit(request: ChatRequest, pricing: ModelPricing | undefined): ChatRequest | null;
  /** Emits an event outside any turn. */
  emit(payload: AgentEventPayload): void;
  report(error: AgentError): void;
}

/** Loads the namespace's newest memories; a failure is reported and yields none. */
export async function loadSessionMemories(scope: MemoryScope): Promise<Memory[]> {
  try {
    return await loadMemories(scope.storage, scope.config.namespace, scope.config.maxItems);
  } catch (error) {
    scope.report(toAgentError(error, 'MEMORY_FAILED'));
    return [];
  }
}

/**
 * Extracts memories from `messages`, telling the model which it already has. When that saved
 * any and the namespace then holds more than `consolidateAbove` memories, the extraction's model
 * consolidates them (see `consolidateMemories`). A namespace that gained nothing is left alone:
 * since it last grew it was consolidated or found under the threshold, and would get the same
 * answer again.
 */
export async function runMemoryExtraction(
  scope: MemoryScope,
  messages: readonly Message[],
  existing: readonly Memory[],
  signal: AbortSignal,
): Promise<void> {
  const modelId = scope.config.extractionModel ?? scope.modelId;
  try {
    const { provider, model } = scope.resolveModel(modelId);
    const reportUsage = (usage: TokenUsage, cost: number | undefined) => {
      const reported = responseCost(usage, cost, model.pricing);
      scope.emit({ type: 'usage', usage, ...(reported !== undefined && { cost: reported }) });
    };
    const admit = (request: ChatRequest) => scope.admit(request, model.pricing);
    const saved = await extractMemories({
      provider,
      model: modelId,
      storage: scope.storage,
      namespace: scope.config.namespace,
      sessionId: scope.sessionId,
      messages,
      existing,
      signal,
      clock: scope.clock,
      onUsage: reportUsage,
      admit,
    });
    if (saved.length === 0) return;
    await consolidateMemories({
      provider,
      model: modelId,
      storage: scope.storage,
      namespace: scope.config.namespace,
      sessionId: scope.sessionId,
      consolidateAbove: scope.config.consolidateAbove,
      signal,
      clock: scope.clock,
      onUsage: reportUsage,
      admit,
    });
  } catch (error) {
    if (signal.aborted) return;
    scope.report(toAgentError(error, 'MEMORY_FAILED'));
  }
}
