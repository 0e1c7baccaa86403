/**
 * The real-HTTP transport of a property run: the real `OpenAIProvider` (and the `openai` SDK)
 * against a local Chat Completions server on 127.0.0.1 that serves each request the planned
 * response of the turn it belongs to, with its failure played as a real fault. The server also
 * checks the history on the wire and counts the responses still open.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { LiveTurn, WorldOptions } from '../world.js';
import { ChatCompletionsServer, OpenAIProvider } from './imports.js';
import { renderResponse } from './render.js';
import { STREAM_IDLE_TIMEOUT_MS } from './stream-idle.js';

/** A run's transport, and the server responses it has not seen closed. */
export function httpTransport(server: ChatCompletionsServer, flavours: readonly number[]) {
  const open = new Set<ServerResponse>();
  let served = 0;
  /** Requests the server received per turn. */
  const received = new Map<LiveTurn, number>();
  const options: WorldOptions = {
    config: { streamIdleTimeoutMs: STREAM_IDLE_TIMEOUT_MS },
    provider: (world) => {
      server.respondWith(async (req, res, body) => {
        open.add(res);
        res.on('close', () => open.delete(res));
        const problem = wireProblem(body);
        if (problem) world.violations.push(`a request on the wire ${problem}`);
        // A request a cancel aborted may arrive after its turn ended: it still gets its own turn's answer.
        const said = lastUserText(body);
        const turn =
          world.turnsByText.get(said) ?? world.turnsByText.get(said.replace(/^\/\S+ /, '')) ?? null;
        const index = turn ? (received.get(turn) ?? 0) + 1 : 0;
        if (turn) received.set(turn, index);
        const { spec, ctx } = world.nextResponse(turn);
        const flavour = flavours[served++ % flavours.length] ?? 0;
        try {
          const from = turn?.shown ?? 0;
          const shown = (count: number, response: ServerResponse) =>
            new Promise<void>((resolve) => {
              const check = () => {
                const done =
                  !turn || turn.shown >= from + count || (turn.id !== null && world.ended.has(turn.id));
                if (!done && !response.destroyed) return;
                turn?.onShown.delete(check);
                resolve();
              };
              turn?.onShown.add(check);
              response.on('close', check);
              check();
            });
          // Only the request the agent is still waiting for may move the clock on: one it gave up
          // on (its turn ended, or a newer request followed) would run out another's idle bound.
          const stalled = () => {
            const awaited =
              turn !== null &&
              turn === world.current &&
              index === turn.requests &&
              !(turn.id !== null && world.ended.has(turn.id)) &&
              !res.destroyed;
            if (awaited) world.clock.skip(STREAM_IDLE_TIMEOUT_MS);
            else res.destroy();
          };
          await renderResponse(req, res, spec, {
            script: ctx,
            flavour,
            timers: world.timers,
            shown,
            stalled,
          });
        } catch {
          res.destroy();
        }
      });
      return new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'local', models: [world.model] });
    },
  };
  return { options, open };
}

interface WireMessage {
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string }[];
  tool_call_id?: string;
}

/** Every assistant `tool_calls` id is answered by one `tool` message before the next turn of talk. */
function wireProblem(body: Record<string, unknown>): string | null {
  const messages = (body['messages'] ?? []) as WireMessage[];
  const open = new Map<string, number>();
  const waiting = () => [...open.values()].reduce((a, b) => a + b, 0);
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const id = message.tool_call_id ?? '';
      const n = open.get(id) ?? 0;
      if (n === 0) return `has a tool message ${index} answering no call`;
      open.set(id, n - 1);
      continue;
    }
    if (waiting() > 0 && (message.role === 'user' || message.role === 'assistant')) {
      return `has message ${index} (${message.role}) after ${waiting()} unanswered tool call(s)`;
    }
    for (const call of message.tool_calls ?? []) open.set(call.id ?? '', (open.get(call.id ?? '') ?? 0) + 1);
  }
  return waiting() > 0 ? `ends with ${waiting()} unanswered tool call(s)` : null;
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = (body['messages'] ?? []) as WireMessage[];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  if (typeof user?.content === 'string') return user.content;
  if (Array.isArray(user?.content)) {
    return user.content
      .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}
