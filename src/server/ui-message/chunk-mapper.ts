/**
 * `ChunkMapper`: one turn's `AgentEvent` payloads to UI message stream chunks, as a small pure
 * state machine (one per stream: a reconnect maps the turn again from its first event, so every
 * stream of a turn says the same chunks in the same order).
 *
 * - A step is one model request and the calls it asked for: `start-step` before its first chunk,
 *   `finish-step` once the next request's output (or the turn's end) comes.
 * - Every `*-delta` follows its `*-start`; an open part is ended before anything else is said.
 * - `final_answer` is not a tool part: structured output is `data-output`.
 * @module
 */
import { addResponse, NO_USAGE, type UsageTotals } from '../../conversation/usage-totals.js';
import { FINAL_ANSWER_TOOL } from '../../vocabulary/tools.js';
import type { AgentEventPayload } from '../../types.js';
import { CHAT_FAILED_SENTENCE, type ChatFinishReason, type UiMessageChunk } from './chunks.js';

/** The id of the text or reasoning part `index` of the message `messageId`. */
export function partId(messageId: string, kind: 'text' | 'reasoning', index: number): string {
  return `${messageId}-${kind === 'text' ? 't' : 'r'}${index}`;
}

/** Our finish reasons as the UI message stream names them. */
export function chatFinishReason(reason: string): ChatFinishReason {
  if (reason === 'stop' || reason === 'length') return reason;
  if (reason === 'content_filter') return 'content-filter';
  return 'other';
}

/** Maps one turn's events to chunks. */
export class ChunkMapper {
  #stepOpen = false;
  /** The open step has had tool activity or a whole response: the next model output is a new step. */
  #stepDone = false;
  #text: string | null = null;
  #reasoning: string | null = null;
  #parts = 0;
  #totals: UsageTotals = NO_USAGE;
  readonly #tools = new Set<string>();
  readonly #asked = new Set<string>();
  readonly #denied = new Set<string>();
  #ended = false;

  constructor(readonly messageId: string) {}

  /** Whether the turn's terminal event was mapped. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The chunk every stream of the turn starts with. */
  start(): UiMessageChunk[] {
    return [{ type: 'start', messageId: this.messageId }];
  }

  /** The chunks of one event (none for events a chat does not show). */
  push(payload: AgentEventPayload): UiMessageChunk[] {
    if (this.#ended) return [];
    const out: UiMessageChunk[] = [];
    switch (payload.type) {
      case 'text_delta':
        this.#modelOutput(out);
        if (this.#reasoning !== null) this.#endReasoning(out);
        if (this.#text === null) {
          this.#text = partId(this.messageId, 'text', this.#parts++);
          out.push({ type: 'text-start', id: this.#text });
        }
        out.push({ type: 'text-delta', id: this.#text, delta: payload.text });
        break;
      case 'reasoning_delta':
        this.#modelOutput(out);
        if (this.#text !== null) this.#endText(out);
        if (this.#reasoning === null) {
          this.#reasoning = partId(this.messageId, 'reasoning', this.#parts++);
          out.push({ type: 'reasoning-start', id: this.#reasoning });
        }
        out.push({ type: 'reasoning-delta', id: this.#reasoning, delta: payload.text });
        break;
      case 'usage':
        this.#modelOutput(out);
        this.#endParts(out);
        this.#totals = addResponse(this.#totals, payload.usage, payload.cost);
        out.push({ type: 'message-metadata', messageMetadata: { ...this.#totals } });
        this.#stepDone = true;
        break;
      case 'output_delta':
        this.#modelOutput(out);
        this.#endParts(out);
        out.push({ type: 'data-output', data: payload.partial, transient: true });
        break;
      case 'output':
        this.#modelOutput(out);
        this.#endParts(out);
        out.push({ type: 'data-output', data: payload.output });
        break;
      case 'approval_requested':
        this.#toolActivity(out);
        this.#toolInput(out, payload.callId, payload.toolName, payload.arguments);
        this.#asked.add(payload.callId);
        out.push({ type: 'tool-approval-request', approvalId: payload.callId, toolCallId: payload.callId });
        break;
      case 'approval_resolved':
        // Only a call whose approval was asked has a part that can take the answer.
        if (!this.#asked.has(payload.callId)) break;
        this.#toolActivity(out);
        if (!payload.approved) this.#denied.add(payload.callId);
        out.push({
          type: 'tool-approval-response',
          approvalId: payload.callId,
          approved: payload.approved,
          ...(payload.reason !== undefined && { reason: payload.reason }),
        });
        break;
      case 'tool_call_start':
        if (payload.toolName === FINAL_ANSWER_TOOL) break;
        this.#toolActivity(out);
        this.#toolInput(out, payload.callId, payload.toolName, payload.arguments);
        break;
      case 'tool_call_end':
        if (payload.toolName === FINAL_ANSWER_TOOL) break;
        this.#toolActivity(out);
        this.#toolInput(out, payload.callId, payload.toolName, undefined);
        if (this.#denied.has(payload.callId))
          out.push({ type: 'tool-output-denied', toolCallId: payload.callId });
        else if (payload.success)
          out.push({
            type: 'tool-output-available',
            toolCallId: payload.callId,
            output: payload.output.content,
          });
        else
          out.push({
            type: 'tool-output-error',
            toolCallId: payload.callId,
            errorText: payload.output.content,
          });
        break;
      case 'turn_complete':
        this.#endParts(out);
        if (this.#stepOpen) out.push({ type: 'finish-step' });
        out.push({ type: 'finish', finishReason: chatFinishReason(payload.finishReason) });
        this.#ended = true;
        break;
      case 'turn_cancelled':
        this.#endParts(out);
        out.push({ type: 'abort' });
        this.#ended = true;
        break;
      case 'error':
        if (!payload.fatal) break;
        this.#endParts(out);
        out.push({ type: 'error', errorText: CHAT_FAILED_SENTENCE });
        this.#ended = true;
        break;
      default:
        break;
    }
    return out;
  }

  /** How a stream ends while the turn waits for approvals: the step and the message, for now. */
  awaitingApproval(): UiMessageChunk[] {
    const out: UiMessageChunk[] = [];
    this.#endParts(out);
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    out.push({ type: 'finish', finishReason: 'tool-calls' });
    return out;
  }

  #modelOutput(out: UiMessageChunk[]): void {
    if (this.#stepOpen && !this.#stepDone) return;
    this.#endParts(out);
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    out.push({ type: 'start-step' });
    this.#stepOpen = true;
    this.#stepDone = false;
  }

  #toolActivity(out: UiMessageChunk[]): void {
    this.#endParts(out);
    if (!this.#stepOpen) {
      out.push({ type: 'start-step' });
      this.#stepOpen = true;
    }
    this.#stepDone = true;
  }

  #toolInput(out: UiMessageChunk[], callId: string, toolName: string, input: unknown): void {
    if (this.#tools.has(callId)) return;
    this.#tools.add(callId);
    out.push({ type: 'tool-input-start', toolCallId: callId, toolName });
    out.push({ type: 'tool-input-available', toolCallId: callId, toolName, input });
  }

  #endParts(out: UiMessageChunk[]): void {
    if (this.#text !== null) this.#endText(out);
    if (this.#reasoning !== null) this.#endReasoning(out);
  }

  #endText(out: UiMessageChunk[]): void {
    out.push({ type: 'text-end', id: this.#text! });
    this.#text = null;
  }

  #endReasoning(out: UiMessageChunk[]): void {
    out.push({ type: 'reasoning-end', id: this.#reasoning! });
    this.#reasoning = null;
  }
}
