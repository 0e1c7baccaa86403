/**
 * Streams no recording covers, each DERIVED from a recorded one in test/fixtures/responses-streams
 * by an edit named here (the recording itself is never changed): another text, other ids, another
 * terminal event, another framing, rotated item ids, a second parallel call.
 * @module
 */
import { readResponsesStream, sseData } from './responses-server.js';

type Event = Record<string, unknown>;

/** The events of a recorded stream, as JSON. */
export function recordedEvents(name: string): Event[] {
  return sseData(readResponsesStream(name));
}

/** Events back to SSE: OpenAI's framing (`event:` + `data:`), or `data:` only with `[DONE]`. */
export function toSse(events: readonly Event[], framing: 'event' | 'data-only' = 'event'): string {
  const body = events
    .map((e) =>
      framing === 'event'
        ? `event: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`
        : `data: ${JSON.stringify(e)}\n\n`,
    )
    .join('');
  return framing === 'data-only' ? `${body}data: [DONE]\n\n` : body;
}

/** Deep copy of JSON data. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * Derived from `vercel-azure-text.sse` (one message, text `Hello`): the text replaced by `text`,
 * the response and message ids made unique by `tag`, and the usage replaced when given.
 */
export function textStream(
  text: string,
  tag: string,
  usage?: { input_tokens: number; output_tokens: number },
): string {
  const raw = readResponsesStream('vercel-azure-text.sse')
    .replaceAll('"Hello"', JSON.stringify(text))
    .replaceAll('resp_02ce8deeb6197db2', `resp_${tag}_`)
    .replaceAll('msg_02ce8deeb6197db2', `msg_${tag}_`);
  const events = sseData(raw);
  if (usage) {
    const terminal = events.at(-1)!['response'] as Event;
    terminal['usage'] = { ...usage, total_tokens: usage.input_tokens + usage.output_tokens };
  }
  return toSse(events);
}

/** `events` with the terminal `response.completed` replaced by `terminal(response)`. */
export function withTerminal(events: readonly Event[], terminal: (response: Event) => Event): Event[] {
  const out = copy(events) as Event[];
  const at = out.findIndex((e) => e['type'] === 'response.completed');
  out[at] = terminal(out[at]!['response'] as Event);
  return out;
}

/** Every event with an `item_id` (and every item) gets a new id: a Copilot-like server. */
export function rotateItemIds(events: readonly Event[]): Event[] {
  let n = 0;
  return copy(events).map((e) => {
    if (typeof e['item_id'] === 'string') e['item_id'] = `rotated-${n++}`;
    const item = e['item'] as Event | undefined;
    if (item && typeof item['id'] === 'string') item['id'] = `rotated-${n++}`;
    return e;
  });
}

/**
 * Derived from `vercel-azure-tool-call.sse` (one `function_call` at output_index 0): a second call,
 * a copy of the first with call_id `call_parallel_2`, id `fc_parallel_2` and arguments `args`,
 * streamed after it at output_index 1 (added, argument deltas, done) and added to the final output.
 */
export function twoParallelCalls(args: string): Event[] {
  const events = recordedEvents('vercel-azure-tool-call.sse');
  const firstDone = events.findIndex(
    (e) => e['type'] === 'response.output_item.done' && (e['item'] as Event)['type'] === 'function_call',
  );
  const first = events[firstDone]!['item'] as Event;
  const second = { ...copy(first), id: 'fc_parallel_2', call_id: 'call_parallel_2', arguments: args };
  const added = { ...second, status: 'in_progress', arguments: '' };
  const extra: Event[] = [
    { type: 'response.output_item.added', output_index: 1, item: added },
    {
      type: 'response.function_call_arguments.delta',
      output_index: 1,
      item_id: 'fc_parallel_2',
      delta: args.slice(0, 4),
    },
    {
      type: 'response.function_call_arguments.delta',
      output_index: 1,
      item_id: 'fc_parallel_2',
      delta: args.slice(4),
    },
    {
      type: 'response.function_call_arguments.done',
      output_index: 1,
      item_id: 'fc_parallel_2',
      arguments: args,
    },
    { type: 'response.output_item.done', output_index: 1, item: second },
  ];
  const out = copy(events);
  out.splice(firstDone + 1, 0, ...extra);
  const terminal = out.find((e) => e['type'] === 'response.completed')!['response'] as Event;
  (terminal['output'] as Event[]).push(second);
  return out;
}
