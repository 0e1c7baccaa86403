/**
 * The peer bench's model server, run as its own process: an OpenAI-compatible
 * `POST /v1/chat/completions` on 127.0.0.1 that streams the scripted steps of `script.ts` as
 * Server-Sent Events, the way the real API does (a role chunk, content deltas or tool calls split
 * into pieces, the finish reason, a usage chunk, `[DONE]`). Prints `listening <port>` once ready.
 *
 * Run: `node bench/.build/processes/model-server.js` (built by the bench).
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nextStep, scenarioOf, TOOL_NAME, type ScriptedStep, type ScriptMessage } from './script.js';

/** Bodies are written in slices of this size, so a client reads them in pieces as from a real server. */
const WRITE_SLICE = 16 * 1024;

/** The SSE body of one scripted step. Pure; the server caches it per model and step. */
function sseBody(model: string, step: ScriptedStep, promptChars: number): string {
  const base = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":${JSON.stringify(model)},`;
  const event = (delta: object, finish: string | null = null) =>
    `data: ${base}"choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
  const parts = [event({ role: 'assistant', content: '' })];
  if (step.type === 'answer') {
    for (const text of step.deltas) parts.push(event({ content: text }));
  } else {
    step.calls.forEach(({ id, key }, index) => {
      const args = JSON.stringify({ key });
      const half = Math.ceil(args.length / 2);
      parts.push(
        event({
          tool_calls: [{ index, id, type: 'function', function: { name: TOOL_NAME, arguments: '' } }],
        }),
        event({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
        event({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
      );
    });
  }
  parts.push(event({}, step.type === 'answer' ? 'stop' : 'tool_calls'));
  const completion = step.type === 'answer' ? step.deltas.length : step.calls.length * 3;
  const prompt = Math.ceil(promptChars / 4);
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  parts.push(`data: ${base}"choices":[],"usage":${JSON.stringify(usage)}}\n\n`, 'data: [DONE]\n\n');
  return parts.join('');
}

const cache = new Map<string, string>();

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    res.writeHead(404).end();
    return;
  }
  const pieces: Buffer[] = [];
  req.on('data', (piece: Buffer) => pieces.push(piece));
  req.on('end', () => {
    const raw = Buffer.concat(pieces).toString('utf8');
    const request = JSON.parse(raw) as { model: string; messages: ScriptMessage[] };
    const scenario = scenarioOf(request.model);
    if (!scenario) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `unknown model ${request.model}`, type: 'invalid_request_error' },
        }),
      );
      return;
    }
    const step = nextStep(scenario, request.messages);
    // The prompt size only changes the usage numbers, and only in `long`: rounded to keep the cache small.
    const promptChars = raw.length - (raw.length % 4096);
    const key = `${request.model}|${JSON.stringify(step)}|${promptChars}`;
    let body = cache.get(key);
    if (body === undefined) {
      body = sseBody(request.model, step, promptChars);
      if (cache.size > 1000) cache.clear();
      cache.set(key, body);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let at = 0; at < body.length; at += WRITE_SLICE) res.write(body.slice(at, at + WRITE_SLICE));
    res.end();
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
