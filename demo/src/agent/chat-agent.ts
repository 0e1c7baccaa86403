/**
 * What the chat uses of an agent, a session and a turn: the surface a local `Agent` (in this
 * page) and a `RemoteAgent` (on the demo server) share, so the chat does not know where its agent
 * runs. A local `Agent` is one as it is; a remote one goes through `remote-chat-agent.ts`.
 * @module
 */
import type { Observable } from 'rxjs';
import type {
  AgentEvent,
  Conversation,
  InterruptedTurn,
  SendMessageOptions,
  SessionChange,
  SessionConfig,
  SessionPage,
  SessionSummary,
  TurnResult,
} from 'youyou-agent';

/** A running turn. */
export interface ChatTurn<T = unknown> {
  readonly id: string;
  readonly events: Observable<AgentEvent>;
  readonly result: Promise<TurnResult<T>>;
  approve(callId: string, options?: { always?: boolean }): Promise<void>;
  deny(callId: string, options?: { reason?: string; always?: boolean }): Promise<void>;
  cancel(): void;
}

/** An open session. */
export interface ChatSession {
  readonly id: string;
  readonly modelId: string;
  readonly interruptedTurn: InterruptedTurn | null;
  /** The turn that runs now, whoever started it (on the server: the page before a reload, too). */
  readonly activeTurn: ChatTurn | null;
  readonly conversation: Observable<Conversation>;
  readonly events: Observable<AgentEvent>;
  sendMessage(input: string, options?: SendMessageOptions): Promise<ChatTurn>;
  continueTurn(): Promise<ChatTurn>;
  discardInterruptedTurn(): Promise<void>;
  close(): Promise<void>;
}

/** The agent: opens sessions. */
export interface ChatAgent {
  newSession(config?: SessionConfig): Promise<ChatSession>;
  resumeSession(id: string, options?: { ifLocked?: 'reject' | 'steal' }): Promise<ChatSession>;
  /** Other tabs' and instances' changes to the stored sessions. */
  readonly sessionChanges: Observable<SessionChange>;
  shutdown(): Promise<void>;
}

/** The stored sessions, as the sidebar lists, searches and deletes them. */
export interface SessionDirectory {
  listSessions(cursor: string | null, limit: number): Promise<SessionPage>;
  findSessions(query: string): Promise<SessionSummary[]>;
  deleteSession(id: string): Promise<void>;
}
