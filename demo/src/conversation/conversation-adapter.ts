/**
 * Derives the {@link Conversation} of a session from `session.messages` plus the live events,
 * until the library's `session.conversation` does it. The only module of the demo that reads
 * raw events and messages for rendering: when the library ships `session.conversation`, this
 * file goes and the chat subscribes to that instead.
 *
 * Items keep their object identity while unchanged, so the chat view redraws only what changed;
 * a streamed delta touches only the streaming item. Ids come from positions in
 * `session.messages`, which a resumed session rebuilds identically, so live and resumed items
 * match (except what is never stored: reasoning, durations, and live notices).
 * @module
 */
import { BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import type {
  AgentEvent,
  ContentBlock,
  Message,
  RunningTurn,
  Session,
  TokenUsage,
  ToolOutput,
} from 'youyou-agent';
import { itemKey, type Conversation, type ConversationItem } from './conversation.js';
import { compactionThreshold } from './empty-conversation.js';
import { noticeForSystemMessage, SKIPPED_RESULT_TEXTS } from './system-notices.js';

/** A conversation being derived, and what feeds it. */
export interface LiveConversation {
  readonly conversation: Observable<Conversation>;
  /** Follows `turn`; `input` shows at once as the user's item, before the runtime appends it. */
  beginTurn(turn: RunningTurn, input: string): void;
  /** Stops following the session; the observable completes. */
  dispose(): void;
}

type ToolItem = Extract<ConversationItem, { kind: 'tool' }>;
interface LiveTool {
  status: 'running' | 'done' | 'error';
  output?: ToolOutput;
  durationMs?: number;
}
interface Draft {
  /** Where the assistant message will land in `session.messages`. */
  index: number;
  text: string;
  reasoning: string;
}

const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * Starts deriving the conversation of `session` (a new or a resumed one).
 * @example
 * const live = deriveConversation(session, { contextWindow: 128_000 });
 * live.conversation.subscribe((c) => chat.render(c));
 * live.beginTurn(await session.sendMessage(text), text);
 */
export function deriveConversation(session: Session, options: { contextWindow: number }): LiveConversation {
  const { contextWindow } = options;
  const reasoningAt = new Map<number, string>();
  const liveTools = new Map<string, LiveTool>();
  /** Live-only notices, each placed before the message index it was raised at. */
  const notices: { before: number; item: ConversationItem }[] = [];
  const previous = new Map<string, ConversationItem>();
  const subscriptions: Subscription[] = [];
  let draft: Draft | null = null;
  let pendingUser: { before: number; item: ConversationItem } | null = null;
  let turn: Conversation['turn'] = null;
  let usage = ZERO_USAGE;
  let cost: number | null = null;
  let lastResponseTokens = 0;
  // Everything but the streaming item, recomputed only when the messages or live state changed.
  let settled: ConversationItem[] = [];
  let seen: { length: number; last: Message | undefined } = { length: -1, last: undefined };
  let dirty = true;

  const subject = new BehaviorSubject<Conversation>(snapshot());

  function snapshot(): Conversation {
    const messages = session.messages;
    if (dirty || messages.length !== seen.length || messages.at(-1) !== seen.last) {
      settleDraft(messages);
      settled = settledItems(messages);
      seen = { length: messages.length, last: messages.at(-1) };
      dirty = false;
    }
    const streaming = draftItem();
    return {
      items: streaming ? [...settled, streaming] : settled,
      turn,
      usage,
      cost,
      context: {
        estimatedTokens: Math.max(estimateTokens(messages), lastResponseTokens),
        contextWindow,
        compactAt: compactionThreshold(contextWindow),
      },
    };
  }

  /** Once the streamed response is in the messages, its reasoning stays with it. */
  function settleDraft(messages: readonly Message[]): void {
    if (draft && messages.length > draft.index) {
      if (draft.reasoning) reasoningAt.set(draft.index, draft.reasoning);
      draft = null;
    }
    if (pendingUser && messages.length > pendingUser.before) pendingUser = null;
  }

  function settledItems(messages: readonly Message[]): ConversationItem[] {
    const results = new Map<string, Extract<Message, { type: 'tool_result' }>>();
    for (const m of messages) if (m.type === 'tool_result') results.set(m.callId, m);
    const items: ConversationItem[] = [];
    const noticesBefore = (index: number) => {
      for (const n of notices) if (n.before === index) items.push(n.item);
    };
    messages.forEach((message, index) => {
      noticesBefore(index);
      const item = itemFor(message, index, results);
      if (item) items.push(item);
    });
    for (const n of notices) if (n.before >= messages.length) items.push(n.item);
    if (pendingUser) items.push(pendingUser.item);
    return items.map(keepIdentity);
  }

  function itemFor(
    message: Message,
    index: number,
    results: ReadonlyMap<string, Extract<Message, { type: 'tool_result' }>>,
  ): ConversationItem | null {
    const id = `m${index}`;
    switch (message.type) {
      case 'user':
        return { kind: 'user', id, content: message.content };
      case 'assistant': {
        const text = textOf(message.content);
        const reasoning = reasoningAt.get(index) ?? '';
        // An assistant message that only carries tool calls is no row of its own.
        if (text === '' && reasoning === '') return null;
        return { kind: 'assistant', id, text, reasoning, status: message.status };
      }
      case 'tool_call':
        return toolItem(message, results.get(message.callId), liveTools.get(message.callId));
      case 'tool_result':
        return null; // shown in its call's card
      case 'system':
        return noticeForSystemMessage(id, message.content);
    }
  }

  function draftItem(): ConversationItem | null {
    if (!draft || (draft.text === '' && draft.reasoning === '')) return null;
    return keepIdentity({
      kind: 'assistant',
      id: `m${draft.index}`,
      text: draft.text,
      reasoning: draft.reasoning,
      status: 'streaming',
    });
  }

  /** The item emitted last time under the same key, when nothing in it changed. */
  function keepIdentity(item: ConversationItem): ConversationItem {
    const key = itemKey(item);
    const before = previous.get(key);
    if (before && sameItem(before, item)) return before;
    previous.set(key, item);
    return item;
  }

  function emit(): void {
    const next = snapshot();
    const last = subject.value;
    const unchanged =
      next.turn === last.turn &&
      next.usage === last.usage &&
      next.cost === last.cost &&
      next.context.estimatedTokens === last.context.estimatedTokens &&
      next.items.length === last.items.length &&
      next.items.every((item, i) => item === last.items[i]);
    if (!unchanged) subject.next(next);
  }

  function onEvent(event: AgentEvent): void {
    const { payload } = event;
    switch (payload.type) {
      case 'text_delta':
      case 'reasoning_delta': {
        draft ??= { index: session.messages.length, text: '', reasoning: '' };
        if (payload.type === 'text_delta') draft.text += payload.text;
        else draft.reasoning += payload.text;
        break;
      }
      case 'tool_call_start':
        liveTools.set(payload.callId, { status: 'running' });
        dirty = true;
        break;
      case 'tool_call_end':
        liveTools.set(payload.callId, {
          status: payload.success ? 'done' : 'error',
          output: payload.output,
          durationMs: payload.durationMs,
        });
        dirty = true;
        break;
      case 'usage':
        usage = addUsage(usage, payload.usage);
        if (payload.cost !== undefined) cost = (cost ?? 0) + payload.cost;
        if (event.turnId !== null)
          lastResponseTokens = payload.usage.inputTokens + payload.usage.outputTokens;
        break;
      case 'context_compacted':
        if (payload.strategy === 'micro') {
          addNotice(
            event,
            'info',
            `Old tool outputs were cleared to save context (${payload.tokensBefore} \u2192 ${payload.tokensAfter} tokens).`,
          );
        }
        break;
      case 'error':
        addNotice(
          event,
          payload.fatal ? 'error' : 'warning',
          payload.fatal ? `Error: ${payload.error.message}` : payload.error.message,
        );
        if (payload.fatal) endTurn(event.turnId);
        break;
      case 'turn_cancelled':
        endTurn(event.turnId);
        break;
      case 'turn_complete':
        endTurn(event.turnId);
        break;
      default:
        break;
    }
    emit();
  }

  function addNotice(event: AgentEvent, level: 'info' | 'warning' | 'error', text: string): void {
    notices.push({
      before: session.messages.length,
      item: { kind: 'notice', id: `e${event.sequence}`, level, text },
    });
    dirty = true;
  }

  function endTurn(turnId: string | null): void {
    if (turn !== null && turn.id === turnId) {
      turn = null;
      dirty = true;
    }
  }

  // Events outside any turn: memory extraction's usage and errors.
  subscriptions.push(
    session.events.subscribe((event) => {
      if (event.turnId === null) onEvent(event);
    }),
  );

  return {
    conversation: subject.asObservable(),
    beginTurn(running, input) {
      turn = { id: running.id, status: 'running' };
      pendingUser = {
        before: session.messages.length,
        item: { kind: 'user', id: 'pending', content: [{ type: 'text', text: input }] },
      };
      dirty = true;
      emit();
      subscriptions.push(running.events.subscribe({ next: onEvent, complete: emit }));
      void running.result.then(() => {
        endTurn(running.id);
        emit();
      });
    },
    dispose() {
      for (const s of subscriptions) s.unsubscribe();
      subject.complete();
    },
  };
}

function toolItem(
  call: Extract<Message, { type: 'tool_call' }>,
  result: Extract<Message, { type: 'tool_result' }> | undefined,
  live: LiveTool | undefined,
): ToolItem {
  const item: ToolItem = {
    kind: 'tool',
    callId: call.callId,
    toolName: call.toolName,
    arguments: call.arguments,
    status: result
      ? SKIPPED_RESULT_TEXTS.includes(result.content)
        ? 'skipped'
        : result.isError
          ? 'error'
          : 'done'
      : (live?.status ?? 'running'),
  };
  const output: ToolOutput | undefined = result
    ? {
        content: result.content,
        isError: result.isError,
        ...(live?.output?.metadata !== undefined && { metadata: live.output.metadata }),
      }
    : live?.output;
  if (output) item.output = output;
  if (live?.durationMs !== undefined) item.durationMs = live.durationMs;
  return item;
}

function sameItem(a: ConversationItem, b: ConversationItem): boolean {
  switch (a.kind) {
    case 'user':
      return b.kind === 'user' && a.content === b.content;
    case 'assistant':
      return (
        b.kind === 'assistant' && a.text === b.text && a.reasoning === b.reasoning && a.status === b.status
      );
    case 'notice':
      return b.kind === 'notice' && a.level === b.level && a.text === b.text;
    case 'tool':
      return (
        b.kind === 'tool' &&
        a.status === b.status &&
        a.arguments === b.arguments &&
        a.durationMs === b.durationMs &&
        a.output?.content === b.output?.content &&
        a.output?.isError === b.output?.isError &&
        a.output?.metadata === b.output?.metadata
      );
  }
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** About 4 characters per token, over what the messages hold. */
function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) {
    if (m.type === 'user' || m.type === 'assistant') chars += textOf(m.content).length;
    else if (m.type === 'tool_call') chars += m.toolName.length + JSON.stringify(m.arguments ?? null).length;
    else chars += m.content.length;
  }
  return Math.ceil(chars / 4);
}
