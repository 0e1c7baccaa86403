/**
 * Opening a session: `session_start` fires for a new session with its id and resolved config,
 * never for a resumed one; the resolved config is the first thing stored, and resume reads it.
 */
import { describe, expect, it } from 'vitest';
import {
  HookResult,
  InMemorySessionStorage,
  type HookPayload,
  type MemoryStorage,
  type ModelInfo,
  type Plugin,
} from '../../src/index.js';
import { SCRIPTED_MODEL, reply } from '../../src/testing/index.js';
import { createTestAgent, testPlugin } from '../support/agent.js';
import { recordEvents } from '../support/events.js';

const OTHER_MODEL: ModelInfo = { ...SCRIPTED_MODEL, id: 'other-model', displayName: 'Other model' };
const models = [SCRIPTED_MODEL, OTHER_MODEL];

/** A plugin that records every session_start payload into `starts` and answers with `result`. */
function sessionStartRecorder(starts: HookPayload[], result?: HookResult): Plugin {
  return testPlugin('starts', {
    session_start: (payload) => {
      starts.push(payload);
      return result;
    },
  });
}

/** A plugin whose session_start handler throws. */
const brokenStart = testPlugin('broken-start', {
  session_start: () => {
    throw new Error('cannot reach the audit log');
  },
});

describe('session_start', () => {
  it('fires before newSession resolves, with the session id and the config holding the resolved (default) model', async () => {
    const starts: HookPayload[] = [];
    const { agent } = await createTestAgent({ models, plugins: [sessionStartRecorder(starts)] });
    const session = await agent.newSession();

    expect(starts).toEqual([
      expect.objectContaining({
        event: 'session_start',
        sessionId: session.id,
        turnId: null,
        data: { sessionId: session.id, config: { modelId: SCRIPTED_MODEL.id } },
      }),
    ]);
    await agent.shutdown();
  });

  it('carries an explicit model and the systemPromptOverride', async () => {
    const starts: HookPayload[] = [];
    const { agent } = await createTestAgent({ models, plugins: [sessionStartRecorder(starts)] });
    const session = await agent.newSession({
      modelId: OTHER_MODEL.id,
      systemPromptOverride: 'Answer in French.',
    });
    expect(starts[0]?.data).toEqual({
      sessionId: session.id,
      config: { modelId: OTHER_MODEL.id, systemPromptOverride: 'Answer in French.' },
    });
    await agent.shutdown();
  });

  it('does not fire on resumeSession', async () => {
    const starts: HookPayload[] = [];
    const { agent } = await createTestAgent({
      models,
      script: [reply.text('Hello.')],
      plugins: [sessionStartRecorder(starts)],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    await session.close();
    expect(starts).toHaveLength(1);

    const resumed = await agent.resumeSession(session.id);
    expect(resumed.id).toBe(session.id);
    expect(starts).toHaveLength(1);
    await agent.shutdown();
  });

  it('opens the session even when a handler aborts: the abort is ignored, and reported as a non-fatal error', async () => {
    const starts: HookPayload[] = [];
    const { agent } = await createTestAgent({
      models,
      script: [reply.text('Hello.')],
      plugins: [sessionStartRecorder(starts, HookResult.abort('no sessions today'))],
    });
    const session = await agent.newSession();
    const { events: seen } = recordEvents(session.events);
    expect(starts).toHaveLength(1);
    expect((await (await session.sendMessage('hi')).result).status).toBe('completed');
    expect(seen[0]).toMatchObject({ sequence: 1, turnId: null, payload: { type: 'error', fatal: false } });
    expect(seen.at(-1)!.payload.type).toBe('turn_complete');
    await agent.shutdown();
  });
});

describe('a session_start handler that throws', () => {
  // A throwing handler produces a non-fatal error event (HOOK_FAILED, naming plugin and event).
  // session_start runs before newSession resolves, so the only subscriber
  // there can be is one that subscribes as soon as it has the handle: the report must reach it,
  // and the first event it sees must be sequence 1.
  it('is reported as a non-fatal HOOK_FAILED that a subscriber of the new session receives, as event 1', async () => {
    const starts: HookPayload[] = [];
    const { agent } = await createTestAgent({
      models,
      script: [reply.text('Hello.')],
      plugins: [sessionStartRecorder(starts), brokenStart],
    });
    const session = await agent.newSession();
    const { events: seen } = recordEvents(session.events);
    const turn = await session.sendMessage('hi');
    expect((await turn.result).status).toBe('completed');
    expect(starts).toHaveLength(1);

    expect(seen[0]).toMatchObject({
      sequence: 1,
      turnId: null,
      payload: { type: 'error', fatal: false, error: { code: 'HOOK_FAILED' } },
    });
    expect(seen.map((e) => e.sequence)).toEqual(seen.map((_, i) => i + 1));
    await agent.shutdown();
  });
});

describe('a memory load that fails at open', () => {
  it('is reported as a non-fatal MEMORY_FAILED to the new session’s subscriber, and the session works', async () => {
    const unreachable: MemoryStorage = {
      search: () => Promise.reject(new Error('memory service unreachable')),
      save: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    };
    const { agent } = await createTestAgent({
      script: [reply.text('Hello.')],
      memory: { namespace: 'user-1', checkpointInterval: 5 },
      memoryStorage: unreachable,
    });
    const session = await agent.newSession();
    const { events: seen } = recordEvents(session.events);
    expect((await (await session.sendMessage('hi')).result).status).toBe('completed');

    expect(seen[0]).toMatchObject({
      sequence: 1,
      turnId: null,
      payload: { type: 'error', fatal: false, error: { code: 'MEMORY_FAILED' } },
    });
    expect(seen.map((e) => e.payload.type)).toEqual(['error', 'text_delta', 'turn_complete']);
    await agent.shutdown();
  });
});

describe('the stored session config', () => {
  it('is the first stored event: metadata session_config with the resolved model, before the first user message', async () => {
    const storage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({
      models,
      sessionStorage: storage,
      script: [reply.text('Bonjour.')],
    });
    const session = await agent.newSession({ systemPromptOverride: 'Answer in French.' });
    await (
      await session.sendMessage('hello')
    ).result;
    await session.close();

    const events = (await storage.loadSession(session.id))!;
    expect(events.map((e) => (e.payload.type === 'metadata' ? e.payload.key : e.payload.type))).toEqual([
      'session_config',
      'turn_started',
      'user_message',
      'assistant_message',
      'turn_ended',
    ]);
    expect(events[0]!.payload).toEqual({
      type: 'metadata',
      key: 'session_config',
      value: { modelId: SCRIPTED_MODEL.id, systemPromptOverride: 'Answer in French.' },
    });
    const { sessions } = await storage.listSessions(null, 10);
    expect(sessions).toEqual([expect.objectContaining({ id: session.id, modelId: SCRIPTED_MODEL.id })]);
    await agent.shutdown();
  });

  it('is stored even for a session that never took a turn', async () => {
    const storage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({ models, sessionStorage: storage });
    const session = await agent.newSession({ modelId: OTHER_MODEL.id });
    await session.close();
    expect(await storage.loadSession(session.id)).toEqual([
      expect.objectContaining({
        payload: { type: 'metadata', key: 'session_config', value: { modelId: OTHER_MODEL.id } },
      }),
    ]);
    await agent.shutdown();
  });

  it('is what resume restores: the resumed session asks the stored model with the stored override, and is not stored twice', async () => {
    const storage = new InMemorySessionStorage();
    const { agent, provider } = await createTestAgent({
      models,
      sessionStorage: storage,
      script: [reply.text('Bonjour.'), reply.text('Au revoir.')],
    });
    const session = await agent.newSession({
      modelId: OTHER_MODEL.id,
      systemPromptOverride: 'Answer in French.',
    });
    await (
      await session.sendMessage('hello')
    ).result;
    await session.close();

    const resumed = await agent.resumeSession(session.id);
    await (
      await resumed.sendMessage('bye')
    ).result;
    await resumed.close();

    const second = provider.requests[1]!;
    expect(second.model).toBe(OTHER_MODEL.id);
    expect(second.systemPrompt).toContain('Answer in French.');
    const events = (await storage.loadSession(session.id))!;
    const configs = events.filter((e) => e.payload.type === 'metadata' && e.payload.key === 'session_config');
    expect(configs).toHaveLength(1);
    await agent.shutdown();
  });
});
