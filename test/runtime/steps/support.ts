/**
 * Shared fakes for driving the turn and session steps directly: a {@link Journal} that records,
 * in one timeline, everything a step does through its scope (events, reports, appended messages,
 * records, hook calls), with a real `HookRegistry` behind its hook caller so tests tap real
 * handlers.
 */
import { HookRegistry } from '../../../src/hooks/hook-registry.js';
import type { AgentError } from '../../../src/errors.js';
import type { HookDataMap } from '../../../src/ports/plugin.js';
import type { HookCaller } from '../../../src/runtime/session-scope.js';
import type {
  AgentEventPayload,
  HookEvent,
  Message,
  ModelInfo,
  SessionEventPayload,
  TokenUsage,
  ToolSpec,
} from '../../../src/types.js';
import { SCRIPTED_MODEL } from '../../../src/testing/index.js';

export const IDS = { sessionId: 's-1', turnId: 't-1' } as const;

export type Entry =
  | { kind: 'emit'; payload: AgentEventPayload }
  | { kind: 'report'; error: AgentError }
  | { kind: 'append'; message: Message; persist: boolean }
  | { kind: 'record'; payload: SessionEventPayload }
  | { kind: 'hook'; event: HookEvent; data: unknown }
  | { kind: 'note'; what: string };

/** Records what a step does through its scope, in order. */
export class Journal {
  readonly entries: Entry[] = [];
  /** Tap handlers here (`journal.hooks.tap(event, 'test', null, handler)`): `hook` dispatches through it. */
  readonly hooks = new HookRegistry({ timeoutMs: 5_000 });

  readonly emit = (payload: AgentEventPayload): void => void this.entries.push({ kind: 'emit', payload });
  readonly report = (error: AgentError): void => void this.entries.push({ kind: 'report', error });
  readonly append = (message: Message, persist = true): void =>
    void this.entries.push({ kind: 'append', message, persist });
  readonly record = (payload: SessionEventPayload): void =>
    void this.entries.push({ kind: 'record', payload });
  /** Records something else the step did (a drain, an extraction…). */
  readonly note = (what: string): void => void this.entries.push({ kind: 'note', what });

  readonly hook: HookCaller = Object.assign(
    async <E extends HookEvent>(event: E, data: HookDataMap[E]) => {
      this.entries.push({ kind: 'hook', event, data });
      return this.hooks.dispatch(event, IDS, data);
    },
    { has: (event: HookEvent) => this.hooks.has(event) },
  );

  /** One short label per entry, e.g. `hook:turn_start`, `append:user`, `emit:usage`, `report:COMPACT_ERROR`. */
  get trail(): string[] {
    return this.entries.map((e) => {
      switch (e.kind) {
        case 'emit':
          return `emit:${e.payload.type}`;
        case 'report':
          return `report:${e.error.code}`;
        case 'append':
          return `append:${e.message.type}${e.persist ? '' : ' (live only)'}`;
        case 'record':
          return e.payload.type === 'metadata' ? `record:${e.payload.key}` : `record:${e.payload.type}`;
        case 'hook':
          return `hook:${e.event}`;
        case 'note':
          return e.what;
      }
    });
  }

  get emitted(): AgentEventPayload[] {
    return this.entries.flatMap((e) => (e.kind === 'emit' ? [e.payload] : []));
  }
  get reported(): AgentError[] {
    return this.entries.flatMap((e) => (e.kind === 'report' ? [e.error] : []));
  }
  get appended(): Message[] {
    return this.entries.flatMap((e) => (e.kind === 'append' ? [e.message] : []));
  }
  get recorded(): SessionEventPayload[] {
    return this.entries.flatMap((e) => (e.kind === 'record' ? [e.payload] : []));
  }
  /** The data each call of `event` was dispatched with. */
  hookData(event: HookEvent): unknown[] {
    return this.entries.flatMap((e) => (e.kind === 'hook' && e.event === event ? [e.data] : []));
  }
}

/** A prompt fake: `SYS` plus the dynamic sections; counts its builds. */
export function fakePrompt() {
  const builds: (readonly string[])[] = [];
  return {
    builds,
    build: async (sections: readonly string[]) => {
      builds.push([...sections]);
      return ['SYS', ...sections].join('|');
    },
  };
}

export const usage = (inputTokens: number, outputTokens: number): TokenUsage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
});

export const model = (overrides: Partial<ModelInfo> = {}): ModelInfo => ({ ...SCRIPTED_MODEL, ...overrides });

export const SPEC: ToolSpec = { name: 'echo', description: 'echoes', parameters: { type: 'object' } };

export const text = (value: string): Message => ({ type: 'user', content: [{ type: 'text', text: value }] });

/** An AbortSignal that never aborts. */
export const live = (): AbortSignal => new AbortController().signal;
