/**
 * The `data` of each event of a `text/event-stream` body: what an MCP server's SSE answer
 * carries. Lines end with `\n` or `\r\n` (what servers send); `event`, `id`, `retry` and comments
 * are read past.
 * @module
 */

/**
 * Yields each event's data (its `data:` lines joined by `\n`); stops reading the body when the
 * consumer stops.
 * @example
 * for await (const data of sseData(response.body!)) console.log(JSON.parse(data));
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (let line of lines) {
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
