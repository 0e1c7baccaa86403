/**
 * The relayed body's redaction, driven directly: the key is replaced wherever it falls, also when
 * the upstream's chunks cut it (over HTTP, chunk boundaries are up to the network, so they are
 * chosen here), and a chunk that cannot be the start of the key is passed on whole at once.
 */
import { describe, expect, it } from 'vitest';
import { redactingStream } from '../../src/server/model-proxy-redact.js';

const KEY = 'sk-server-secret-0123456789abcdef';

/** What the stream makes of `chunks`, and what it had let out before the last chunk was written. */
async function relay(chunks: readonly string[], secret = KEY): Promise<{ out: string; early: string }> {
  const transform = redactingStream(secret);
  const writer = transform.writable.getWriter();
  const reader = transform.readable.getReader();
  const decoder = new TextDecoder();
  let out = '';
  const reading = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      out += decoder.decode(chunk.value, { stream: true });
    }
  })();
  const encoder = new TextEncoder();
  for (const chunk of chunks.slice(0, -1)) await writer.write(encoder.encode(chunk));
  // Let everything written so far through before the last chunk goes in.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const early = out;
  await writer.write(encoder.encode(chunks.at(-1) ?? ''));
  await writer.close();
  await reading;
  return { out, early };
}

describe('redactingStream', () => {
  it('replaces the key wherever a chunk boundary cuts it', async () => {
    const text = `data: {"error":"bad key ${KEY}"}\n\n`;
    for (let cut = 1; cut < text.length; cut++) {
      const { out } = await relay([text.slice(0, cut), text.slice(cut)]);
      expect(out, `cut at ${cut}`).toBe('data: {"error":"bad key [redacted]"}\n\n');
    }
  });

  it('replaces a key cut into many pieces, and several keys in one chunk', async () => {
    const pieces = [...`a${KEY}b`];
    expect((await relay(pieces)).out).toBe('a[redacted]b');
    expect((await relay([`${KEY}${KEY} and ${KEY}`])).out).toBe('[redacted][redacted] and [redacted]');
  });

  it('holds nothing back from a chunk whose end cannot start the key: events are not delayed', async () => {
    const event = 'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n';
    const { early, out } = await relay([event, 'data: [DONE]\n\n']);
    expect(early).toBe(event);
    expect(out).toBe(`${event}data: [DONE]\n\n`);
  });

  it('holds back only the end that could start the key, and lets it out when it is not the key', async () => {
    const { early, out } = await relay(['text sk-ser', 'ious matter']);
    expect(early).toBe('text ');
    expect(out).toBe('text sk-serious matter');
  });

  it('leaves a placeholder key such as "ollama" alone', async () => {
    expect((await relay(['ollama says hi'], 'ollama')).out).toBe('ollama says hi');
  });

  it('keeps multi-byte characters whole across chunk boundaries', async () => {
    const bytes = new TextEncoder().encode('¡Hola! 你好');
    const transform = redactingStream(KEY);
    const writer = transform.writable.getWriter();
    const text = new Response(transform.readable).text();
    for (const byte of bytes) await writer.write(new Uint8Array([byte]));
    await writer.close();
    expect(await text).toBe('¡Hola! 你好');
  });
});
