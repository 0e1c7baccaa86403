/**
 * Server mode's agent: a `RemoteAgent` at the demo server's `/agent`, with the page's token and
 * this browser's user id on every request, fitted to what the chat uses (`chat-agent.ts`). Two
 * things a local agent has are filled in here: a session's model id (the remote session does not
 * carry it, so it is remembered from the session list and from `newSession`), and the search over
 * sessions (the server lists but does not search, so the search reads the newest sessions' titles).
 * A structured answer names the server's schema (`output: { name }`), which the demo server
 * registers under the same name as the page's.
 * @module
 */
import { EMPTY, type Observable } from 'rxjs';
import type {
  SendMessageOptions,
  SessionChange,
  SessionConfig,
  SessionPage,
  SessionSummary,
} from 'youyou-agent';
import { RemoteAgent, type RemoteSendOptions, type RemoteSession } from 'youyou-agent/remote';
import { DEMO_USER_HEADER } from '../settings/demo-user.js';
import type { ChatAgent, ChatSession, ChatTurn, SessionDirectory } from './chat-agent.js';

/** Where the demo server mounts its agent routes. */
export const AGENT_SERVER_PATH = '/agent';

/** How many of the newest sessions a search reads (the server has no search of its own). */
const SEARCHED = 200;
const SEARCH_PAGE = 50;

/** A session on the demo server, as the chat uses it. */
class RemoteChatSession implements ChatSession {
  readonly #session: RemoteSession;
  readonly modelId: string;

  constructor(session: RemoteSession, modelId: string) {
    this.#session = session;
    this.modelId = modelId;
  }

  get id() {
    return this.#session.id;
  }
  get interruptedTurn() {
    return this.#session.interruptedTurn;
  }
  get activeTurn() {
    return this.#session.activeTurn;
  }
  get conversation() {
    return this.#session.conversation;
  }
  get events() {
    return this.#session.events;
  }

  sendMessage(input: string, options: SendMessageOptions = {}): Promise<ChatTurn> {
    const remote: RemoteSendOptions = {
      ...(options.output && {
        output: {
          name: options.output.name ?? 'answer',
          ...(options.output.maxRepairs !== undefined && { maxRepairs: options.output.maxRepairs }),
        },
      }),
      ...(options.budget && { budget: options.budget }),
    };
    return this.#session.sendMessage(input, remote);
  }
  continueTurn(): Promise<ChatTurn> {
    return this.#session.continueTurn();
  }
  discardInterruptedTurn(): Promise<void> {
    return this.#session.discardInterruptedTurn();
  }
  close(): Promise<void> {
    return this.#session.close();
  }
}

/**
 * The demo server's agent for this browser.
 * @example
 * const agent = new RemoteChatAgent({ origin: location.origin, token, userId: demoUserId(), defaultModel });
 */
export class RemoteChatAgent implements ChatAgent, SessionDirectory {
  readonly #remote: RemoteAgent;
  readonly #defaultModel: string;
  /** Session id → model id, from the lists and the sessions opened here. */
  readonly #models = new Map<string, string>();
  /** The server feeds no session changes to the page: the list reloads after this page's own. */
  readonly sessionChanges: Observable<SessionChange> = EMPTY;

  constructor(options: { origin: string; token: string; userId: string; defaultModel: string }) {
    this.#remote = new RemoteAgent({
      url: new URL(AGENT_SERVER_PATH, options.origin),
      headers: { authorization: `Bearer ${options.token}`, [DEMO_USER_HEADER]: options.userId },
    });
    this.#defaultModel = options.defaultModel;
  }

  async newSession(config: SessionConfig = {}): Promise<ChatSession> {
    // The server's agents default to the offline model: the page names the one it shows.
    const modelId = config.modelId ?? this.#defaultModel;
    const session = await this.#remote.newSession({ ...config, modelId });
    this.#models.set(session.id, modelId);
    return new RemoteChatSession(session, modelId);
  }

  /** Opens a stored session; the server takes it over from wherever it is open, so `ifLocked` has nothing to do. */
  async resumeSession(id: string): Promise<ChatSession> {
    const session = await this.#remote.resumeSession(id);
    return new RemoteChatSession(session, this.#models.get(id) ?? this.#defaultModel);
  }

  async shutdown(): Promise<void> {}

  async listSessions(cursor: string | null, limit: number): Promise<SessionPage> {
    const page = await this.#remote.listSessions(cursor, limit);
    this.#remember(page.sessions);
    return page;
  }

  /** The newest sessions whose title holds `query` (case-insensitive). */
  async findSessions(query: string): Promise<SessionSummary[]> {
    const needle = query.toLowerCase();
    const found: SessionSummary[] = [];
    let cursor: string | null = null;
    for (let read = 0; read < SEARCHED; read += SEARCH_PAGE) {
      const page = await this.listSessions(cursor, SEARCH_PAGE);
      found.push(...page.sessions.filter((s) => s.title.toLowerCase().includes(needle)));
      cursor = page.nextCursor;
      if (cursor === null) break;
    }
    return found;
  }

  deleteSession(id: string): Promise<void> {
    this.#models.delete(id);
    return this.#remote.deleteSession(id);
  }

  #remember(sessions: readonly SessionSummary[]): void {
    for (const s of sessions) if (s.modelId) this.#models.set(s.id, s.modelId);
  }
}
