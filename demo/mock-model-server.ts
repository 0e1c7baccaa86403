/**
 * A tiny OpenAI-compatible `/v1/chat/completions` server on 127.0.0.1 for the demo: a rule-based
 * "model" that streams Server-Sent Events exactly like the real API (deltas, tool calls split
 * into pieces, usage, `[DONE]`). It calls `get_weather` / `get_time` when the user asks about
 * weather or time, then answers from the tool results.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface WireMessage {
  role: string;
  content?: string | null | { type: string; text?: string }[];
  tool_calls?: { function: { name: string; arguments: string } }[];
}

const textOf = (m: WireMessage | undefined): string =>
  !m?.content ? '' : typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(' ');

/** What the fake model decides to do next. */
function decide(messages: WireMessage[]): { text?: string; calls?: { name: string; arguments: object }[] } {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const results = messages
      .filter((m) => m.role === 'tool')
      .slice(-2)
      .map(textOf);
    return { text: `Here is what I found: ${results.join(' — ')}. Anything else?` };
  }
  const question = textOf(last).toLowerCase();
  const city = /in ([a-zà-ÿ ]+?)(?:[?.!,]|$)/i.exec(textOf(last))?.[1]?.trim() ?? 'Paris';
  const calls: { name: string; arguments: object }[] = [];
  if (question.includes('weather')) calls.push({ name: 'get_weather', arguments: { city } });
  if (question.includes('time')) calls.push({ name: 'get_time', arguments: { city } });
  if (calls.length > 0) return { calls };
  return {
    text: `You said: "${textOf(last)}". I am a scripted demo model: ask me about the weather or the time somewhere.`,
  };
}

/** Starts the server; `close()` stops it. */
export async function startMockModelServer(): Promise<{ baseURL: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { model?: string; messages?: WireMessage[] };
      const decision = decide(body.messages ?? []);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const base = {
        id: 'chatcmpl-demo',
        object: 'chat.completion.chunk',
        created: 0,
        model: body.model ?? 'demo',
      };
      const send = (delta: object, finish: string | null = null) =>
        res.write(
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      const chunks: (() => void)[] = [() => send({ role: 'assistant', content: '' })];
      if (decision.text) {
        for (const word of decision.text.split(/(?<= )/)) chunks.push(() => send({ content: word }));
      }
      decision.calls?.forEach((call, index) => {
        const args = JSON.stringify(call.arguments);
        chunks.push(() =>
          send({
            tool_calls: [
              {
                index,
                id: `call_${index}_${Date.now()}`,
                type: 'function',
                function: { name: call.name, arguments: '' },
              },
            ],
          }),
        );
        for (let i = 0; i < args.length; i += 8)
          chunks.push(() => send({ tool_calls: [{ index, function: { arguments: args.slice(i, i + 8) } }] }));
      });
      chunks.push(() => send({}, decision.calls ? 'tool_calls' : 'stop'));
      const usage = {
        prompt_tokens: raw.length >> 2,
        completion_tokens: chunks.length,
        total_tokens: (raw.length >> 2) + chunks.length,
      };
      chunks.push(() => res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`));
      chunks.push(() => res.end('data: [DONE]\n\n'));
      // Pace the stream like a real model, so the demo shows tokens arriving.
      const timer = setInterval(() => {
        const next = chunks.shift();
        if (next) next();
        if (chunks.length === 0) clearInterval(timer);
      }, 25);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
