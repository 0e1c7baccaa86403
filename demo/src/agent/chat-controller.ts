/**
 * The demo's one stateful object: the current agent and session, and the operations the UI
 * calls (send, stop, open, new chat, delete, apply settings). Operations run one at a time, in
 * the order they were asked for, so clicks cannot race a close against a resume.
 *
 * The agent runs in this page or, in server mode, on the demo server (a remote agent with the
 * same surface, `chat-agent.ts`); nothing else here depends on which.
 *
 * Sessions open lazily: a new chat has no session until its first message, so reloading the
 * page does not leave empty sessions behind. A reload reopens the session the tab had open.
 * @module
 */
import { BehaviorSubject, Subject, type Observable, type Subscription } from 'rxjs';
import {
  AgentError,
  type Conversation,
  type IndexedDbMemoryStorage,
  type IndexedDbSessionStorage,
  type InspectionObserver,
  type InterruptedTurn,
  type SendMessageOptions,
  type SessionPage,
  type SessionSummary,
} from 'youyou-agent';
import { emptyConversation } from '../conversation/empty-conversation.js';
import { OFFLINE_MODEL_ID } from '../model/offline-model.js';
import type { HookActivityPlugin } from '../parts/hook-activity-plugin.js';
import { runsOnServer, type EndpointSettings } from '../settings/settings.js';
import { buildDemoAgent, type DemoAgent } from './build-agent.js';
import { buildServerDemoAgent } from './build-server-agent.js';
import { rememberedOpenSession, rememberOpenSession } from './open-session-memo.js';
import type { ChatSession, ChatTurn, SessionDirectory } from './chat-agent.js';
import type { RetryScheduled } from '../ui/retry-banner.js';
import { summarizeTurn, type TurnSummary } from './turn-summary.js';

/** What the header, composer and sidebar show. */
export interface ChatState {
  /** The open session, `null` for a new chat that has not sent anything yet. */
  sessionId: string | null;
  phase: 'starting' | 'ready' | 'opening' | 'running' | 'closing';
  /** The model of the open session, else of a new one. */
  modelId: string;
  offline: boolean;
  /** Where the agent runs: in this page, or on the demo server. */
  runsOn: 'browser' | 'server';
  /** The last failure of an operation, for the error banner. */
  error: string | null;
  /** The open session's turn a reload cut off, until it is continued or discarded. */
  interrupted: Pick<InterruptedTurn, 'reason' | 'partialText'> | null;
  /**
   * A chat another tab holds (`held`: it could not be opened here) or took away from this tab
   * (`lost`); `null` otherwise.
   */
  lock: { kind: 'held' | 'lost'; sessionId: string; modelId: string } | null;
}

export interface ChatControllerOptions {
  settings: EndpointSettings;
  sessions: IndexedDbSessionStorage;
  memories: IndexedDbMemoryStorage;
}

export class ChatController {
  readonly #state = new BehaviorSubject<ChatState>({
    sessionId: null,
    phase: 'starting',
    modelId: OFFLINE_MODEL_ID,
    offline: true,
    runsOn: 'browser',
    error: null,
    interrupted: null,
    lock: null,
  });
  readonly #conversation = new BehaviorSubject<Conversation>(emptyConversation(16_000));
  readonly #hooks = new BehaviorSubject<HookActivityPlugin | null>(null);
  readonly #turns = new Subject<TurnSummary>();
  readonly #retries = new Subject<RetryScheduled>();
  readonly #sessionsChanged = new Subject<void>();
  readonly #structuredTurns = new Subject<ChatTurn>();
  readonly #options: ChatControllerOptions;
  #settings: EndpointSettings;
  #inspect: InspectionObserver | null = null;
  #demo: DemoAgent | null = null;
  #session: ChatSession | null = null;
  #shown: Subscription | null = null;
  #turn: ChatTurn | null = null;
  #queue: Promise<void> = Promise.resolve();
  /** The current agent, once the first one is built (the sidebar may ask before). */
  #built: Promise<DemoAgent>;
  #builtNow!: (demo: DemoAgent) => void;

  constructor(options: ChatControllerOptions) {
    this.#options = options;
    this.#settings = options.settings;
    this.#built = new Promise((resolve) => (this.#builtNow = resolve));
    void this.#serially(() => this.#start());
  }

  readonly state: Observable<ChatState> = this.#state.asObservable();
  readonly conversation: Observable<Conversation> = this.#conversation.asObservable();
  /** The plugin of the current agent (a new one after every rebuild). */
  readonly hooks: Observable<HookActivityPlugin | null> = this.#hooks.asObservable();
  /** Each failed attempt the runtime will retry, as it is scheduled. */
  readonly retries: Observable<RetryScheduled> = this.#retries.asObservable();
  /** Each turn of this page, once it has ended. */
  readonly turns: Observable<TurnSummary> = this.#turns.asObservable();
  /** Each turn that asks for a structured answer, as it starts (the trip card follows it). */
  readonly structuredTurns: Observable<ChatTurn> = this.#structuredTurns.asObservable();
  /** The stored sessions changed (a turn ended, one was deleted): the list should reload. */
  readonly sessionsChanged: Observable<void> = this.#sessionsChanged.asObservable();

  /** The current agent's stored sessions (this browser's IndexedDB, or the demo server's). */
  readonly sessions: SessionDirectory = {
    listSessions: async (cursor: string | null, limit: number): Promise<SessionPage> =>
      (await this.#built).sessions.listSessions(cursor, limit),
    findSessions: async (query: string): Promise<SessionSummary[]> =>
      (await this.#built).sessions.findSessions(query),
    deleteSession: async (id: string): Promise<void> => (await this.#built).sessions.deleteSession(id),
  };

  get settings(): EndpointSettings {
    return this.#settings;
  }

  /** Sends `text` (with `options`, e.g. a structured answer), opening the session first if this is a new chat. */
  send(text: string, options: SendMessageOptions = {}): Promise<void> {
    return this.#serially(async () => {
      // A chat another tab holds is shown read-only until it is taken over.
      if (this.#turn || this.#state.value.lock) return;
      const opened = !this.#session;
      if (opened) {
        this.#patch({ phase: 'opening' });
        this.#attach(await this.#agent().agent.newSession());
      }
      // Sending closes an interrupted turn as it is (the runtime stores it first).
      const turn = await this.#session!.sendMessage(text, options);
      this.#track(turn);
      if (options.output) this.#structuredTurns.next(turn);
      if (opened) this.#sessionsChanged.next(); // the list shows the new session while it answers
    });
  }

  /** Continues the turn a reload cut off, under its id. */
  continueInterrupted(): Promise<void> {
    return this.#serially(async () => {
      if (this.#turn || !this.#session?.interruptedTurn) return;
      this.#track(await this.#session.continueTurn());
    });
  }

  /** Closes the turn a reload cut off, as it is. */
  discardInterrupted(): Promise<void> {
    return this.#serially(async () => {
      await this.#session?.discardInterruptedTurn();
      this.#patch({ interrupted: null });
    });
  }

  /** Opens the chat another tab holds (or took), taking it away from that tab. */
  takeOver(): Promise<void> {
    return this.#serially(async () => {
      const lock = this.#state.value.lock;
      if (!lock) return;
      await this.#closeCurrent();
      await this.#resume(lock.sessionId, lock.modelId, 'steal');
    });
  }

  #track(turn: ChatTurn): void {
    this.#turn = turn;
    this.#patch({ phase: 'running', interrupted: null });
    void summarizeTurn(turn).then((summary) => {
      if (this.#turn === turn) this.#turn = null;
      this.#turns.next(summary);
      this.#sessionsChanged.next();
      if (this.#state.value.phase === 'running') this.#patch({ phase: 'ready' });
    });
  }

  /**
   * Answers a call of the running turn that waits for approval; `always` allows every later call
   * of that tool in the session. A call no longer waiting (decided, cancelled) is left alone.
   */
  decide(callId: string, choice: 'allow' | 'deny' | 'always'): void {
    const turn = this.#turn;
    if (!turn) return;
    const answered =
      choice === 'deny'
        ? turn.deny(callId, { reason: 'the user clicked Deny' })
        : turn.approve(callId, { always: choice === 'always' });
    answered.catch(() => {}); // APPROVAL_NOT_PENDING: it was decided meanwhile
  }

  /** Cancels the running turn: the partial answer is kept as incomplete. */
  stop(): void {
    this.#turn?.cancel();
  }

  /** Shows a stored session (resuming it). */
  open(summary: Pick<SessionSummary, 'id' | 'modelId'>): Promise<void> {
    return this.#serially(async () => {
      if (this.#session?.id === summary.id) return;
      await this.#closeCurrent();
      await this.#resume(summary.id, summary.modelId);
    });
  }

  /** Leaves the open session for a new, empty chat (no session until its first message). */
  newChat(): Promise<void> {
    return this.#serially(() => this.#closeCurrent());
  }

  /** Deletes the stored session `id`, closing it first when it is open. */
  delete(id: string): Promise<void> {
    return this.#serially(async () => {
      if (this.#session?.id === id) await this.#closeCurrent();
      await this.#agent().sessions.deleteSession(id);
      this.#sessionsChanged.next();
    });
  }

  /** Rebuilds the agent with new settings, and reopens the session that was open. */
  applySettings(settings: EndpointSettings): Promise<void> {
    return this.#serially(async () => {
      this.#settings = settings;
      await this.#rebuildKeepingSession();
    });
  }

  /** Connects `inspect` (or disconnects with `null`): the agent is rebuilt with it. */
  setInspector(inspect: InspectionObserver | null): Promise<void> {
    return this.#serially(async () => {
      this.#inspect = inspect;
      await this.#rebuildKeepingSession();
    });
  }

  dismissError(): void {
    this.#patch({ error: null });
  }

  /** Builds the first agent and reopens the session this tab had open before a reload. */
  async #start(): Promise<void> {
    const memo = rememberedOpenSession();
    // Straight from starting to opening: the page is not ready with an empty chat in between.
    await this.#rebuild([], memo ? 'opening' : 'ready');
    if (!memo || memo.runsOn !== this.#agent().runsOn) {
      this.#patch({ phase: 'ready' });
      return;
    }
    try {
      await this.#resume(memo.id, memo.modelId);
    } catch (error) {
      rememberOpenSession(null);
      this.#showEmpty();
      // Deleted meanwhile (in another tab, on the server): the tab starts with a new chat.
      if (!AgentError.isInstance(error) || error.code !== 'SESSION_NOT_FOUND') throw error;
    }
  }

  async #rebuildKeepingSession(): Promise<void> {
    const open = this.#session && { id: this.#session.id, modelId: this.#session.modelId };
    await this.#closeCurrent();
    await this.#rebuild([]);
    if (open) await this.#resume(open.id, open.modelId);
  }

  /**
   * Resumes `id`; a model this agent does not serve is added to the endpoint's first. A chat
   * another tab holds is not opened: the banner offers to take it over.
   */
  async #resume(id: string, modelId: string, ifLocked: 'reject' | 'steal' = 'reject'): Promise<void> {
    this.#patch({ phase: 'opening', lock: null });
    if (modelId && !this.#agent().models.has(modelId)) await this.#rebuild([modelId], 'opening');
    try {
      this.#attach(await this.#agent().agent.resumeSession(id, { ifLocked }));
    } catch (error) {
      if (!AgentError.isInstance(error) || error.code !== 'SESSION_LOCKED') throw error;
      this.#showEmpty();
      this.#patch({ lock: { kind: 'held', sessionId: id, modelId } });
    }
  }

  /** Builds the agent anew; `phase` is the one it ends in (`opening` when a resume follows). */
  async #rebuild(extraModels: readonly string[], phase: 'ready' | 'opening' = 'ready'): Promise<void> {
    this.#patch({ phase: 'starting' });
    await this.#demo?.agent.shutdown();
    // Server mode: the agent runs in the demo server, and the page holds a remote one.
    const demo =
      (runsOnServer(this.#settings) && buildServerDemoAgent(this.#settings)) ||
      (await buildDemoAgent({
        settings: this.#settings,
        extraModels,
        sessions: this.#options.sessions,
        memories: this.#options.memories,
        inspect: this.#inspect,
      }));
    this.#demo = demo;
    this.#built = Promise.resolve(demo);
    this.#builtNow(demo);
    this.#hooks.next(demo.hooks);
    // Another tab wrote to, opened or closed a chat: the list shows its new state (completes at
    // the agent's shutdown, with the next rebuild).
    demo.agent.sessionChanges.subscribe(({ kind }) => {
      if (kind !== 'locked') this.#sessionsChanged.next();
    });
    this.#showEmpty(phase);
    // Another agent may keep its sessions elsewhere (this browser, or the demo server).
    this.#sessionsChanged.next();
  }

  #attach(session: ChatSession): void {
    this.#session = session;
    rememberOpenSession({ runsOn: this.#agent().runsOn, id: session.id, modelId: session.modelId });
    this.#shown = session.conversation.subscribe((c) => this.#conversation.next(c));
    this.#shown.add(
      session.events.subscribe(({ turnId, payload }) => {
        if (payload.type === 'session_lock_lost') return this.#lost(session);
        if (payload.type !== 'retry_scheduled') return;
        const { attempt, delayMs, error } = payload;
        this.#retries.next({ turnId, attempt, delayMs, message: error.message, startedAt: Date.now() });
      }),
    );
    this.#patch({
      sessionId: session.id,
      phase: 'ready',
      modelId: session.modelId,
      offline: session.modelId === OFFLINE_MODEL_ID,
      interrupted: session.interruptedTurn && {
        reason: session.interruptedTurn.reason,
        partialText: session.interruptedTurn.partialText,
      },
      lock: null,
    });
    // A turn that still runs (on the server, after a reload): this page follows it and answers
    // its approvals, as it would its own.
    const active = session.activeTurn;
    if (active) this.#track(active);
  }

  /** Another tab took `session` over: it closes itself; this tab keeps showing it, read-only. */
  #lost(session: ChatSession): void {
    if (this.#session !== session) return;
    this.#session = null;
    this.#turn = null;
    this.#patch({
      phase: 'ready',
      interrupted: null,
      lock: { kind: 'lost', sessionId: session.id, modelId: session.modelId },
    });
  }

  /** Closes the open session (cancelling its turn): the close path runs memory extraction. */
  async #closeCurrent(): Promise<void> {
    const session = this.#session;
    if (!session) return;
    this.#patch({ phase: 'closing' });
    this.#turn?.cancel();
    await session.close();
    this.#shown?.unsubscribe();
    this.#session = null;
    this.#shown = null;
    this.#turn = null;
    rememberOpenSession(null);
    this.#sessionsChanged.next();
    this.#showEmpty();
  }

  #showEmpty(phase: 'ready' | 'opening' = 'ready'): void {
    const demo = this.#agent();
    const model = demo.models.get(demo.defaultModel);
    this.#conversation.next(emptyConversation(model?.contextWindow ?? this.#settings.contextWindow));
    this.#patch({
      sessionId: null,
      phase,
      modelId: demo.defaultModel,
      offline: demo.defaultModel === OFFLINE_MODEL_ID,
      runsOn: demo.runsOn,
      interrupted: null,
      lock: null,
    });
  }

  #agent(): DemoAgent {
    if (!this.#demo) throw new Error('the agent is not built yet');
    return this.#demo;
  }

  #patch(change: Partial<ChatState>): void {
    this.#state.next({ ...this.#state.value, ...change });
  }

  /** Runs `operation` after the ones before it; a failure shows in the error banner. */
  #serially(operation: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(operation).catch((error: unknown) => {
      const phase = this.#turn ? 'running' : 'ready';
      this.#patch({ error: error instanceof Error ? error.message : String(error), phase });
    });
    this.#queue = run;
    return run;
  }
}
