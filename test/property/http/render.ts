/**
 * Serves a {@link ResponseSpec} as a real Chat Completions response over HTTP, with its failure
 * played as a fault a real server shows. The fault means the same to the runtime as the
 * scripted failure, so the same invariants and expected ends hold:
 * - retryable before output: 429 with `Retry-After: 0` (or `retry-after-ms` for a retry-wait
 *   moment), 503, a reset before or after the headers, a stall before or after the headers;
 * - retryable after some chunks: a reset, a stall, a transient error object in the stream;
 * - fatal: 400 or 401 before output, a non-transient error object after it;
 * - malformed: a chunk that is not JSON; no finish: the body just ends (no finish reason, no
 *   `[DONE]`); a normal end may come as `[DONE]` without a finish reason.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SCRIPTED_MODEL } from '../../../src/testing/index.js';
import type { HarnessTimers } from '../instruments.js';
import type { ResponseSpec } from '../scenario.js';
import { argumentsText, type ScriptContext } from '../scripts.js';
import { sseEvent, startSse } from './imports.js';

const base = {
  id: 'chatcmpl-property',
  object: 'chat.completion.chunk',
  created: 0,
  model: SCRIPTED_MODEL.id,
};
const chunk = (delta: object, finishReason: string | null = null) =>
  sseEvent({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });

/** What serving one response needs. */
export interface RenderContext {
  script: ScriptContext;
  /** Picks among the faults that mean the same failure. */
  flavour: number;
  timers: HarnessTimers;
  /**
   * Resolves once the agent has shown `count` more text or reasoning deltas than when this
   * response began (or the turn ended, or the client went away). A fault after output waits for
   * it: bytes in flight when a socket breaks may never reach the client, and the runtime must
   * judge the failure by the output it really saw.
   */
  shown(count: number, res: ServerResponse): Promise<void>;
  /** The response stalls for good: the agent's idle bound runs out now. */
  stalled(): void;
}

/** Writes `spec` to `res` as SSE, playing its ending as the chosen fault. */
export async function renderResponse(
  req: IncomingMessage,
  res: ServerResponse,
  spec: ResponseSpec,
  rc: RenderContext,
): Promise<void> {
  const pieces = contentPieces(spec, rc.script);
  const { ending } = spec;
  const pause = async (index: number) => {
    if (!spec.stall || spec.stall.at !== index) return;
    if (spec.stall.kind === 'delay') await rc.timers.sleep(1);
    // Through `then`: that is how a watched stall learns it was reached (`await` would bypass it).
    else await new Promise((resolve) => void rc.script.stall().then(resolve));
  };
  /** Writes the first `count` pieces; before a fault, waits until the client has shown them. */
  const stream = async (count: number, thenFault = true) => {
    for (let i = 0; i < count; i++) {
      await pause(i);
      if (!write(res, pieces[i]!)) return false;
    }
    await pause(count);
    if (thenFault) await rc.shown(outputsIn(spec, count), res);
    return !res.destroyed;
  };

  if (ending.kind === 'throw' && ending.at === 0) {
    return ending.error === 'retryable' ? retryableBeforeOutput(req, res, rc) : fatalStatus(res, rc.flavour);
  }
  startSse(res);
  switch (ending.kind) {
    case 'done': {
      if (!(await stream(pieces.length, false))) return;
      // Some servers send `[DONE]` with no finish reason: a normal end, read as 'stop'.
      const silentStop = ending.finishReason === 'stop' && rc.flavour % 2 === 1;
      if (!silentStop) write(res, chunk({}, ending.finishReason));
      if (spec.usage) write(res, usageChunk(spec.usage));
      write(res, 'data: [DONE]\n\n');
      return void res.end();
    }
    case 'no_finish':
      if (await stream(pieces.length)) res.end();
      return;
    case 'malformed':
      if (!(await stream(Math.min(ending.at, pieces.length)))) return;
      write(res, 'data: {"choices": [{"delta": \n\n');
      return void res.end();
    case 'throw': {
      if (!(await stream(Math.min(ending.at, pieces.length)))) return;
      if (ending.error !== 'retryable') {
        write(
          res,
          sseEvent({ error: { message: 'the request was refused', type: 'invalid_request_error' } }),
        );
        return void res.end();
      }
      switch (rc.flavour % 3) {
        case 0:
          return void res.destroy();
        case 1:
          return rc.stalled();
        default:
          write(res, sseEvent({ error: { message: 'server error, try again', type: 'server_error' } }));
          return void res.end();
      }
    }
  }
}

/** Non-empty text and reasoning deltas among the first `count` pieces. */
function outputsIn(spec: ResponseSpec, count: number): number {
  const deltas = [...(spec.reasoning === null ? [] : [spec.reasoning]), ...spec.text];
  return deltas.slice(0, count).filter((text) => text !== '').length;
}

/** Reasoning, text and tool calls as chunks, one per scripted item (usage goes with the finish). */
function contentPieces(spec: ResponseSpec, script: ScriptContext): string[] {
  const pieces: string[] = [];
  if (spec.reasoning !== null) pieces.push(chunk({ role: 'assistant', reasoning_content: spec.reasoning }));
  for (const text of spec.text) pieces.push(chunk({ content: text }));
  spec.calls.forEach((call, index) => {
    const id = (call.repeatId && script.lastCallId()) || script.newCallId();
    const args = argumentsText(call);
    const half = Math.floor(args.length / 2);
    pieces.push(
      chunk({
        tool_calls: [
          { index, id, type: 'function', function: { name: call.tool, arguments: args.slice(0, half) } },
        ],
      }) + chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
    );
  });
  return pieces;
}

function usageChunk(usage: { inputTokens: number; outputTokens: number }): string {
  const { inputTokens: p, outputTokens: c } = usage;
  return sseEvent({
    ...base,
    choices: [],
    usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c },
  });
}

async function retryableBeforeOutput(
  req: IncomingMessage,
  res: ServerResponse,
  rc: RenderContext,
): Promise<void> {
  const { retryAfterMs } = rc.script;
  // A retry-wait moment needs a server wait, which only a 429 carries.
  const flavour = retryAfterMs > 0 ? 0 : rc.flavour % 6;
  switch (flavour) {
    case 0: {
      const header = retryAfterMs > 0 ? { 'retry-after-ms': String(retryAfterMs) } : { 'retry-after': '0' };
      res.writeHead(429, { 'content-type': 'application/json', ...header });
      return void res.end(
        JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_error' } }),
      );
    }
    case 1:
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error' } }),
      );
    case 2:
      return void req.socket.destroy();
    case 3:
      startSse(res);
      return void res.destroy();
    case 4:
      startSse(res);
      return rc.stalled();
    default:
      return rc.stalled();
  }
}

function fatalStatus(res: ServerResponse, flavour: number): void {
  const status = flavour % 2 === 0 ? 400 : 401;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `refused with ${status}`, type: 'invalid_request_error' } }));
}

/** Writes unless the client has gone; says whether it wrote. */
function write(res: ServerResponse, text: string): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(text);
  return true;
}
