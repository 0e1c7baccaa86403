/** The scope of `streamModel` for its tests: real history and draft, a journal, a manual clock. */
import { ContextManager } from '../../../src/context/context-manager.js';
import type { ModelProvider } from '../../../src/ports/model-provider.js';
import type { StreamScope } from '../../../src/runtime/steps/stream-model.js';
import { ResponseDraft } from '../../../src/runtime/turn-run.js';
import { ScriptedModelProvider, type ScriptStep } from '../../../src/testing/index.js';
import type { ChatEvent, ModelInfo, TokenUsage } from '../../../src/types.js';
import { ManualClock } from '../manual-clock.js';
import { fakePrompt, IDS, Journal, model, SPEC, text } from './support.js';

export function setup(provider: ModelProvider, info: ModelInfo = model()) {
  const journal = new Journal();
  const context = new ContextManager([text('earlier')]);
  const usages: TokenUsage[] = [];
  const clock = new ManualClock();
  const draft = new ResponseDraft();
  const scope: StreamScope = {
    provider,
    model: info,
    idleTimeoutMs: 60_000,
    pendingCalls: new Map(),
    prompt: fakePrompt(),
    history: {
      get messages() {
        return context.messages;
      },
      recordUsage: (u) => void usages.push(u),
    },
    append: (message) => {
      context.push(message);
      journal.append(message);
    },
    tools: [SPEC],
    draft,
    checkpointDraft: null,
    clearDraft: () => {},
    hook: journal.hook,
    emit: journal.emit,
    clock,
  };
  return { journal, scope, context, usages, clock, draft };
}

export const scripted = (...script: ScriptStep[]) => new ScriptedModelProvider({ script });
/** A provider that yields `events` as they are, valid or not, and ignores the signal. */
export const raw = (id: string, ...events: unknown[]): ModelProvider => ({
  id,
  models: [model()],
  async *chat() {
    for (const event of events) yield event as ChatEvent;
  },
});
export const input = (attempt = 1) => ({ ...IDS, attempt, dynamicSections: ['dyn'] });
