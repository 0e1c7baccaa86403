/**
 * What a property run registers on each agent it builds: the scripted model, the two note tools
 * (the call's arguments choose what they do), the probe plugin (counts `turn_end`), the chaos
 * plugin (does what the scenario says on every hook), and a storage whose saves settle late.
 * @module
 */
import * as z from 'zod/mini';
import {
  AgentError,
  defineTool,
  HookResult,
  type ChatRequest,
  type HookEvent,
  type HookHandler,
  type HookPayload,
  type ModelProvider,
  type Plugin,
  type SessionStorage,
} from '../../src/index.js';
import { reply, ScriptedModelProvider, type ScriptedResponse } from '../../src/testing/index.js';
import { HOOK_TIMEOUT_MS, TOOL_TIMEOUT_MS, type HarnessTimers } from './instruments.js';
import { TOOL_MODES, TURN_HOOK_EVENTS, type HookAct, type TurnHookEvent } from './scenario.js';
import { responseItems } from './scripts.js';
import type { World } from './world.js';

const TURN_HOOKS: ReadonlySet<string> = new Set(TURN_HOOK_EVENTS);

/** The scripted model, answering from the running turn's plan; one step always queued. */
export function scriptedProvider(world: World): ModelProvider {
  const scripted = new ScriptedModelProvider({ models: [world.model] });
  const step = (request: ChatRequest): ScriptedResponse => {
    scripted.enqueue(step);
    switch (request.purpose) {
      case 'memory_extraction':
      case 'memory_consolidation':
        return memoryAnswer(world);
      case 'compaction':
        return world.scenario.compactionAnswer === 'ok'
          ? reply.text('Summary: the user and the model kept notes.')
          : reply.error(new AgentError('PROVIDER_ERROR', 'the summary model is down', { retryable: true }));
      default: {
        const { spec, ctx } = world.nextResponse();
        return responseItems(spec, ctx);
      }
    }
  };
  return scripted.enqueue(step);
}

function memoryAnswer(world: World): ScriptedResponse {
  switch (world.scenario.memoryAnswer) {
    case 'valid':
      return reply.text('{"memories":[{"content":"The user keeps notes."}]}');
    case 'invalid':
      return reply.text('no JSON here');
    case 'throw':
      return reply.error(new AgentError('PROVIDER_ERROR', 'memory model down', { retryable: true }));
  }
}

/** A note tool; the call's `mode` says whether it answers, fails, throws, holds or hangs. */
export function noteTool(world: World, name: string, mutating: boolean) {
  return defineTool({
    name,
    description: `${name}: a note tool whose behaviour the call chooses`,
    parameters: z.object({ text: z.string(), mode: z.enum(TOOL_MODES) }),
    mutating,
    execute: async ({ arguments: { mode }, signal }) => {
      const held = world.holdIfTripped({ kind: 'tool' });
      if (held) await held;
      switch (mode) {
        case 'ok':
          return `${name} done`;
        case 'long':
          return `${name} found: ${'a long note '.repeat(500)}`;
        case 'error':
          return { content: `${name} could not do it`, isError: true };
        case 'throw':
          throw new Error(`${name} broke`);
        case 'hold':
          await world.briefHold();
          return `${name} done after a while`;
        case 'hang':
          // Never returns by itself: its time limit ends it (now, not in 40 s). The limit's timer
          // starts once execute has returned its promise, so hurry it from the next microtask.
          await Promise.resolve();
          world.clock.hurryAll(TOOL_TIMEOUT_MS);
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          return 'too late';
      }
    },
  });
}

/** Registered first, so it sees every `turn_end` whatever the chaos plugin does. */
export function probePlugin(world: World): Plugin {
  return {
    id: 'probe',
    displayName: 'Probe',
    description: 'Counts turn ends for the property suite',
    apply: (ctx) => {
      ctx.tap('turn_end', ({ turnId, data }) => {
        if (turnId === null) world.violations.push('turn_end fired without a turn id');
        else world.turnEnds.set(turnId, [...(world.turnEnds.get(turnId) ?? []), data.status]);
      });
    },
  };
}

/** Does what the scenario says on every hook, and lets the harness act while a hook runs. */
export function chaosPlugin(world: World): Plugin {
  const { scenario } = world;
  const events = new Set<HookEvent>([...TURN_HOOK_EVENTS, ...(Object.keys(scenario.hooks) as HookEvent[])]);
  return {
    id: 'chaos',
    displayName: 'Chaos',
    description: 'Misbehaves on purpose for the property suite',
    apply: (ctx) => {
      for (const event of events) {
        const handler = (payload: HookPayload) => onHook(world, event, payload);
        ctx.tap(event, handler as HookHandler);
      }
    },
    shutdown: () => {
      switch (scenario.pluginShutdown) {
        case 'ok':
          return;
        case 'throw':
          world.hookFailuresCaused += 1;
          throw new Error('chaos shutdown broke');
        case 'hang':
          world.hookFailuresCaused += 1;
          world.clock.expireNext(HOOK_TIMEOUT_MS);
          return new Promise<void>(() => {});
      }
    },
  };
}

/** Synchronous on purpose: a hook's time limit starts when the handler returns. */
function onHook(world: World, event: HookEvent, payload: HookPayload): unknown {
  const index = world.hookCalls[event] ?? 0;
  world.hookCalls[event] = index + 1;
  if (payload.turnId !== null && world.ended.has(payload.turnId)) {
    world.violations.push(`a ${event} hook ran for a turn that had already ended`);
  }
  const acts = world.scenario.hooks[event];
  const planned: HookAct = acts?.[index % acts.length] ?? 'continue';
  const trigger = world.current?.armed?.interrupt.at;
  const held =
    TURN_HOOKS.has(event) && payload.turnId !== null && trigger?.kind === 'hook'
      ? world.holdIfTripped({ ...trigger, event: event as TurnHookEvent })
      : null;
  // The held call does what the trigger says (`held` means this call was the trigger's moment).
  const act = held && trigger?.kind === 'hook' ? trigger.then : planned;
  if (['throw', 'invalid', 'timeout'].includes(act)) world.hookFailuresCaused += 1;
  if (!held) return handlerResult(world, act, event, payload, () => world.clock.expireNext(HOOK_TIMEOUT_MS));
  return held.then(() =>
    handlerResult(world, act, event, payload, () => world.clock.hurryAll(HOOK_TIMEOUT_MS)),
  );
}

/** What a handler returns for `act`; `expire` makes its time limit run out now. */
function handlerResult(
  world: World,
  act: HookAct,
  event: HookEvent,
  payload: HookPayload,
  expire: () => void,
): unknown {
  switch (act) {
    case 'continue':
      return undefined;
    case 'continue_with':
      return HookResult.continueWith(
        event === 'turn_start'
          ? [...(payload.data as string[]), 'A section from the chaos plugin.']
          : payload.data,
      );
    case 'throw':
      throw new Error(`chaos ${event} broke`);
    case 'invalid':
      return { type: 'nonsense' };
    case 'stall':
      return world.briefHold();
    case 'timeout':
      expire();
      return new Promise(() => {});
    case 'abort':
      return HookResult.abort('the chaos plugin says no');
  }
}

/** A storage whose saves settle a macrotask late, still stored in call order. */
export function slowStorage(inner: SessionStorage, timers: HarnessTimers): SessionStorage {
  return {
    saveEvent: async (id, event) => {
      const saved = inner.saveEvent(id, event);
      await timers.sleep();
      await saved;
    },
    loadSession: (id) => inner.loadSession(id),
    listSessions: (cursor, limit) => inner.listSessions(cursor, limit),
    findSessions: (query) => inner.findSessions(query),
    deleteSession: (id) => inner.deleteSession(id),
  };
}
