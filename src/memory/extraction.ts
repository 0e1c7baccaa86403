/**
 * Memory extraction for a session — at a checkpoint (every `checkpointInterval` turns) and at
 * close. Its usage is reported in a `usage` event with `turnId: null`; a failure is a non-fatal
 * `MEMORY_FAILED` error event and never blocks the turn or the close.
 * @module
 */
import { toAgentError } from '../errors.js';
import { extractMemories } from './memory-manager.js';
import type { SessionRuntime } from '../runtime/session-runtime.js';

/** Extracts memories from the session's history (a no-op without memory config and storage). */
export async function runMemoryExtraction(rt: SessionRuntime, signal: AbortSignal): Promise<void> {
  const memory = rt.services.config.memory;
  const storage = rt.services.memoryStorage;
  if (!memory || !storage) return;
  const model = memory.extractionModel ?? rt.modelId;
  try {
    const { provider } = rt.services.providers.resolve(model);
    const { usage, cost } = await extractMemories({
      provider,
      model,
      storage,
      namespace: memory.namespace,
      sessionId: rt.id,
      messages: rt.context.messages,
      existing: rt.memories,
      signal,
    });
    if (usage) rt.hub.emit(null, { type: 'usage', usage, ...(cost !== undefined && { cost }) });
  } catch (error) {
    if (signal.aborted) return;
    rt.reportError(null, toAgentError(error, 'MEMORY_FAILED'));
  }
}

/** Counts a finished turn; extracts at every `checkpointInterval`-th. */
export async function memoryCheckpoint(rt: SessionRuntime, signal: AbortSignal): Promise<void> {
  const memory = rt.services.config.memory;
  if (!memory || !rt.services.memoryStorage) return;
  rt.checkpointCounter++;
  if (rt.checkpointCounter < memory.checkpointInterval) return;
  rt.checkpointCounter = 0;
  await runMemoryExtraction(rt, signal);
}
