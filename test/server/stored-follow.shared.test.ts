/**
 * Followers on a non-holding instance share one reader of the session's storage: three streams of
 * `GET …/events` on B, for a session A holds, run B's agent factory for one reader, not once each; each
 * gets the stored state; once the last one leaves, the next follower starts a new reader.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHandler } from '../../src/server.js';
import { sseWriterSettings, type SseWriter } from '../../src/server/sse-writer.js';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import {
  agentFactory,
  bearerAuthorize,
  remoteFor,
  serve,
  serversClosedAfterEach,
  testWorld,
} from './support.js';

const servers = serversClosedAfterEach();
afterEach(() => {
  sseWriterSettings.onOpen = null;
});

/** Reads an SSE answer until its first `state` frame; returns its data. */
async function firstState(response: Response): Promise<{ id: string }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let match: RegExpExecArray | null = null;
  while (!(match = /event: state\ndata: (.*)\n\n/.exec(text))) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before a state');
    text += decoder.decode(value, { stream: true });
  }
  return JSON.parse(match[1]!) as { id: string };
}

describe('followers on a non-holding instance', () => {
  it('share one reader: the agent factory runs for one reader, not once per follower', async () => {
    const world = testWorld();
    const lock = new SharedSessionLock();
    const provider = new ScriptedModelProvider();
    const onA = agentFactory({ provider, world, lock: lock.forHolder('A') });
    const onB = agentFactory({ provider, world, lock: lock.forHolder('B') });
    let builtOnB = 0;
    const a = await serve(createAgentHandler({ agent: onA, authorize: bearerAuthorize }));
    const b = await serve(
      createAgentHandler({
        agent: (scope) => {
          builtOnB++;
          return onB(scope);
        },
        authorize: bearerAuthorize,
      }),
    );
    servers.push(a, b);
    const session = await remoteFor(a.url, 'alice').newSession();
    const streams: SseWriter[] = [];
    sseWriterSettings.onOpen = (writer) => streams.push(writer);
    const follow = () => {
      const controller = new AbortController();
      const response = fetch(`${b.url}/sessions/${session.id}/events`, {
        headers: { authorization: 'Bearer alice' },
        signal: controller.signal,
      });
      return { controller, response };
    };
    // The first follower finds out that A holds the session and starts the reader; the next two join it.
    const followers = [follow()];
    expect((await firstState(await followers[0]!.response)).id).toBe(session.id);
    followers.push(follow(), follow());
    for (const { response } of followers.slice(1))
      expect((await firstState(await response)).id).toBe(session.id);
    expect(lock.holderOf(session.id)).toBe('A');
    // One agent found out that A holds the session, one reads it for all three followers (each
    // follower alone would take two).
    expect(builtOnB).toBe(2);
    expect(streams).toHaveLength(3);
    for (const { controller } of followers) controller.abort();
    await Promise.all(streams.map((stream) => stream.closed));
    // The reader stopped with its last follower: the next one starts another.
    const later = follow();
    expect((await firstState(await later.response)).id).toBe(session.id);
    expect(builtOnB).toBe(4);
    later.controller.abort();
  });
});
