/**
 * The page bundle of the agent-level cross-tab tests: each page is one tab running real Agents
 * on IndexedDB with the default session lock (Web Locks). Node opens sessions and sends messages
 * in one tab and looks at the other.
 * @module
 */
import {
  AgentBuilder,
  AgentError,
  IndexedDbSessionStorage,
  type Agent,
  type AgentEvent,
  type Session,
  type SessionChange,
  type SessionEvent,
} from '../../src/index.js';
import { ScriptedModelProvider, reply, type ScriptedResponse } from '../../src/testing/index.js';
import { exposeToHarness } from './page-runtime.js';

interface Tab {
  agent: Agent;
  storage: IndexedDbSessionStorage;
  session: Session | null;
  events: AgentEvent[];
  changes: SessionChange[];
}

const tabs = new Map<string, Tab>();
const tab = (handle: string): Tab => {
  const found = tabs.get(handle);
  if (!found) throw new Error(`no agent '${handle}' in this page`);
  return found;
};

/** A message answers at once; one containing "hold:" streams a part, then holds forever. */
function answer() {
  return (request: { messages: readonly { type: string; content?: unknown }[] }): ScriptedResponse => {
    const last = JSON.stringify(request.messages.at(-1)?.content ?? '');
    if (!last.includes('hold:')) return reply.text(`answer to ${last}`);
    return [
      { type: 'text_delta', text: 'partial ' },
      { type: 'wait', until: new Promise<void>(() => {}) },
      ...reply.text('rest'),
    ];
  };
}

const code = (error: unknown) => (AgentError.isInstance(error) ? error.code : String(error));

const texts = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.payload.type === 'user_message' && e.payload.content[0]?.type === 'text'
      ? [e.payload.content[0].text]
      : [],
  );

function attach(t: Tab, session: Session): void {
  t.session = session;
  session.events.subscribe((e) => t.events.push(e));
}

exposeToHarness({
  /** Builds an agent `handle` on the database `dbName`, with the default lock. */
  async openAgent(handle: string, dbName: string) {
    const storage = new IndexedDbSessionStorage({ dbName });
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(new ScriptedModelProvider({ script: Array.from({ length: 50 }, answer) }))
      .registerSessionStorage(storage)
      .build();
    const t: Tab = { agent, storage, session: null, events: [], changes: [] };
    agent.sessionChanges.subscribe((change) => t.changes.push(change));
    tabs.set(handle, t);
  },

  async newSession(handle: string) {
    const t = tab(handle);
    attach(t, await t.agent.newSession());
    return t.session!.id;
  },

  /** Resumes `id`: `'ok'`, or the rejection's code. */
  async resume(handle: string, id: string, ifLocked: 'reject' | 'wait' | 'steal' = 'reject') {
    const t = tab(handle);
    try {
      attach(t, await t.agent.resumeSession(id, { ifLocked }));
      return 'ok';
    } catch (error) {
      return code(error);
    }
  },

  /** Starts a resume with `'wait'`; `waited(handle)` resolves once it opened. */
  async startWaitingResume(handle: string, id: string) {
    const t = tab(handle);
    (t as Tab & { opened?: Promise<void> }).opened = t.agent
      .resumeSession(id, { ifLocked: 'wait' })
      .then((session) => attach(t, session));
  },

  async waited(handle: string) {
    return (tab(handle) as Tab & { opened?: Promise<void> }).opened;
  },

  /** Sends `text`; with `wait`, resolves with the turn's status, else once it started. */
  async send(handle: string, text: string, wait: boolean) {
    const t = tab(handle);
    try {
      const turn = await t.session!.sendMessage(text);
      if (!wait) {
        void turn.result;
        await new Promise<void>((resolve) =>
          turn.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
        );
        return 'started';
      }
      return (await turn.result).status;
    } catch (error) {
      return code(error);
    }
  },

  /** The event types this tab's session emitted, after `ms` for late ones. */
  /** The tab's event types once `until` is among them (or after 10 s: the test then fails on what it got). */
  async eventTypes(handle: string, until: string) {
    await settled(() => tab(handle).events.some((e) => e.payload.type === until));
    return tab(handle).events.map((e) => e.payload.type);
  },

  /** The tab's session changes once `until` (`<id>:<kind>`) is among them (or after 10 s). */
  async changes(handle: string, until: string) {
    const seen = () => tab(handle).changes.map((c) => `${c.sessionId}:${c.kind}`);
    await settled(() => seen().includes(until));
    return seen();
  },

  async closeSession(handle: string) {
    await tab(handle).session?.close();
  },

  /** The stored user texts of `id`, and whether the stored history pairs calls and results. */
  async stored(handle: string, id: string) {
    return texts((await tab(handle).storage.loadSession(id)) ?? []);
  },

  /**
   * Stores a session of `n` events (user and assistant messages) under `id`, then resumes it in a
   * fresh agent: how many messages it has.
   */
  async resumeStored(dbName: string, id: string, n: number) {
    const storage = new IndexedDbSessionStorage({ dbName });
    const at = new Date().toISOString();
    await storage.saveEvent(id, {
      timestamp: at,
      payload: { type: 'metadata', key: 'session_config', value: { modelId: 'scripted-model' } },
    });
    const writes: Promise<void>[] = [];
    for (let i = 1; i < n; i++) {
      writes.push(
        storage.saveEvent(id, {
          timestamp: at,
          payload:
            i % 2 === 1
              ? { type: 'user_message', content: [{ type: 'text', text: `question ${i}` }] }
              : {
                  type: 'assistant_message',
                  content: [{ type: 'text', text: `answer ${i} `.repeat(20) }],
                  status: 'complete',
                },
        }),
      );
    }
    await Promise.all(writes);
    const agent = await new AgentBuilder({ defaultModel: 'scripted-model' })
      .registerModelProvider(new ScriptedModelProvider())
      .registerSessionStorage(new IndexedDbSessionStorage({ dbName }))
      .build();
    const session = await agent.resumeSession(id);
    const count = session.messages.length;
    await agent.shutdown();
    return count;
  },
});

/**
 * Resolves once `done()` is true, polling every 10 ms, or after 10 s. Another tab's lock
 * hand-over arrives when the browser delivers it, later on a loaded machine, so the tests wait
 * for what they expect instead of a fixed time, and still end when it never comes.
 */
async function settled(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 10_000; !done() && Date.now() < end;)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
