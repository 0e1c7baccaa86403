/**
 * One UI message stream of a turn held here: the turn's events (those this copy saw so far, then
 * each as it comes) mapped afresh from the turn's first event, so every stream — the first, a
 * continuation, a reconnect — starts with `start` and never mid-part. It ends after the turn's
 * terminal chunk, or once the turn waits for approvals (`finish-step`, `finish { 'tool-calls' }`).
 * It is written through the server's one SSE writer: bounded in bytes, with its heartbeats.
 * @module
 */
import type { AgentEvent } from '../../types.js';
import type { HostedSession } from '../hosted-session.js';
import { SseWriter } from '../sse-writer.js';
import { ChunkMapper } from './chunk-mapper.js';
import type { UiMessageChunk } from './chunks.js';

/** The headers of the AI SDK's UI message stream. */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'x-vercel-ai-ui-message-stream': 'v1',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const encoder = /* @__PURE__ */ new TextEncoder();

/** Whether the turn waits for approvals now. */
function awaitsApproval(hosted: HostedSession, turnId: string): boolean {
  const turn = hosted.running;
  return (
    turn?.id === turnId &&
    turn.pendingApprovals.length > 0 &&
    hosted.state().conversation.turn?.status === 'awaiting_approval'
  );
}

/**
 * The stream of `turnId`. `after`: the chunks of events up to this sequence number are not sent
 * (a continuation: the page has them).
 */
export function chatStream(
  hosted: HostedSession,
  turnId: string,
  after: number,
  signal: AbortSignal,
  options: { maxBufferedBytes: number; stallTimeoutMs: number },
): Response {
  const mapper = new ChunkMapper(turnId);
  let check: ReturnType<typeof setTimeout> | null = null;
  let unlisten = () => {};
  const writer = new SseWriter({
    ...options,
    signal,
    headers: UI_MESSAGE_STREAM_HEADERS,
    onClose: () => {
      unlisten();
      if (check !== null) clearTimeout(check);
    },
  });
  let last = 0;
  const send = (chunks: UiMessageChunk[]) => {
    for (const chunk of chunks) writer.write(encoder.encode(`id: ${turnId}.${last}\ndata: ${JSON.stringify(chunk)}\n\n`));
  };
  const endIfWaiting = () => {
    if (!writer.open || mapper.ended || !awaitsApproval(hosted, turnId)) return;
    send(mapper.awaitingApproval());
    writer.close();
  };
  const apply = (event: AgentEvent | null) => {
    if (!writer.open) return;
    if (event === null) return writer.close();
    last = event.sequence;
    const chunks = mapper.push(event.payload);
    if (event.sequence > after) send(chunks);
    if (mapper.ended) return writer.close();
    // The turn's state changes just after the event that made it wait.
    if (check === null) check = setTimeout(() => ((check = null), endIfWaiting()), 0);
  };
  send(mapper.start());
  unlisten = hosted.followTurn(turnId, apply);
  endIfWaiting();
  if (writer.open && hosted.running?.id !== turnId && !mapper.ended) writer.close();
  return writer.response;
}
