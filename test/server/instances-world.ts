/**
 * The world of the several-instances tests on PostgreSQL: a model that answers from the last
 * user message (`say N` → text, `pay N` → a `transfer` call needing approval, `hang N` → text
 * that stops until the test lets it go), the `transfer` tool counting its executions per call,
 * and small HTTP helpers against one instance.
 * @module
 */
import * as z from 'zod/mini';
import { defineTool, type ChatRequest } from '../../src/index.js';
import { reply, ScriptedModelProvider, type ScriptedResponse } from '../../src/testing/index.js';
import type { RemoteTurn } from '../../src/remote.js';
import { deferred, type Deferred } from '../support/waits.js';
import type { RunningServer } from './support.js';

/** The model, the tool and what they saw. */
export interface InstancesWorld {
  provider: ScriptedModelProvider;
  transfer: ReturnType<typeof defineTool>;
  /** How many times `transfer` ran, by call id. */
  executions: Map<string, number>;
  /** The hold of `hang N`, made on first use; resolve it to let that answer finish. */
  hold(n: string): Deferred<void>;
}

const lastUserText = (request: ChatRequest): string => {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.type === 'user') return message.content[0]?.type === 'text' ? message.content[0].text : '';
  }
  return '';
};

/** A world with fresh counters. */
export function instancesWorld(): InstancesWorld {
  const holds = new Map<string, Deferred<void>>();
  const hold = (n: string) => {
    let held = holds.get(n);
    if (!held) holds.set(n, (held = deferred()));
    return held;
  };
  const respond = (request: ChatRequest): ScriptedResponse => {
    const [verb, n = ''] = lastUserText(request).split(' ');
    // A model that has seen the call's result answers (also when a take-over asks it again).
    if (request.messages.some((m) => m.type === 'tool_result' && m.callId === `pay-${n}`))
      return reply.text(`paid ${n}`, { chunks: 2 });
    if (verb === 'pay')
      return reply.toolCalls([{ name: 'transfer', arguments: { amount: Number(n) }, callId: `pay-${n}` }]);
    if (verb === 'hang')
      return [
        { type: 'text_delta', text: `thinking ${n}` },
        { type: 'wait', until: hold(n).promise },
        ...reply.text(' done', { chunks: 1 }),
      ];
    return reply.text(`said ${n}`, { chunks: 3 });
  };
  const executions = new Map<string, number>();
  const transfer = defineTool({
    name: 'transfer',
    description: 'Moves money',
    parameters: z.object({ amount: z.number() }),
    mutating: true,
    needsApproval: true,
    execute: async ({ callId, arguments: { amount } }) => {
      executions.set(callId, (executions.get(callId) ?? 0) + 1);
      return `moved ${amount}`;
    },
  });
  const provider = new ScriptedModelProvider({ script: Array.from({ length: 2_000 }, () => respond) });
  return { provider, transfer, executions, hold };
}

/** `POST` on one instance as `alice`; the answer (an SSE body is cancelled unless `keep`). */
export async function post(
  server: RunningServer,
  path: string,
  body: unknown = {},
  keep = false,
): Promise<Response> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!keep && response.headers.get('content-type')?.startsWith('text/event-stream'))
    void response.body?.cancel();
  return response;
}

/** An error answer's code. */
export async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

/** Resolves once `turn` emitted an event of `type`. */
export function eventOf(turn: RemoteTurn, type: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const sub = turn.events.subscribe((e) => {
      if (e.payload.type !== type) return;
      resolve();
      queueMicrotask(() => sub.unsubscribe());
    });
  });
}

/** `promise`, or a rejection naming `what` after 15 s (a hang shows as a failure that says where). */
export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after 15 s`)), 15_000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Resolves with `check()`'s first truthy answer. For what happens on another instance, where
 * no event of this process says when: asked again every 50 ms, given up after 15 s.
 */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the condition never held');
}
