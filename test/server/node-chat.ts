/**
 * The AI SDK's chat client in Node: `AbstractChat` from `ai` on a plain state (what `useChat`
 * keeps in React state), with `DefaultChatTransport` pointed at a handler, and a `fetch` that
 * records every UI message stream chunk the handler sends, for checking against the AI SDK's own
 * chunk schema.
 * @module
 */
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  uiMessageChunkSchema,
  type ChatState,
  type ChatStatus,
  type UIMessage,
} from 'ai';

class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => void (this.messages = [...this.messages, message]);
  popMessage = () => void (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** A chat client in Node. */
export class NodeChat extends AbstractChat<UIMessage> {
  readonly errors: Error[] = [];
  constructor(options: {
    id: string;
    api: string;
    userId: string;
    fetch: typeof fetch;
    messages?: UIMessage[];
    body?: object;
  }) {
    const errors: Error[] = [];
    super({
      id: options.id,
      state: new PlainState(options.messages),
      transport: new DefaultChatTransport({
        api: options.api,
        headers: { authorization: `Bearer ${options.userId}` },
        fetch: options.fetch,
        ...(options.body && { body: options.body }),
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onError: (error) => void errors.push(error),
    });
    this.errors = errors;
  }
}

/** A `fetch` that keeps every chunk of every UI message stream answer (parsed `data:` lines). */
export function recordingFetch(): { fetch: typeof fetch; chunks: unknown[][] } {
  const chunks: unknown[][] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body)
      return response;
    const [mine, theirs] = response.body.tee();
    const stream: unknown[] = [];
    chunks.push(stream);
    void (async () => {
      const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          const frames = buffered.split('\n\n');
          buffered = frames.pop()!;
          for (const frame of frames) {
            const data = frame.split('\n').find((line) => line.startsWith('data: '));
            if (data) stream.push(JSON.parse(data.slice(6)));
          }
        }
      } catch {
        // the client went away
      }
    })();
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
  return { fetch: recording, chunks };
}

/** The chunks that the AI SDK's chunk schema refuses (with why). */
export async function invalidChunks(chunks: readonly unknown[]): Promise<unknown[]> {
  const schema = uiMessageChunkSchema();
  const bad: unknown[] = [];
  for (const chunk of chunks) {
    const result = await schema.validate!(chunk);
    if (!result.success) bad.push({ chunk, error: String(result.error) });
  }
  return bad;
}

/** Waits (bounded) until `condition` holds. */
export async function until(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A message as JSON carries it (the client keeps `undefined` fields that JSON drops). */
export function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
