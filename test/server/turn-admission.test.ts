/**
 * Admission: beyond `maxRunningTurns` running turns on an instance, a turn (or a continue) is
 * refused at once with 503 `SERVER_BUSY` and `Retry-After`; the running ones go on, and a place
 * given back takes the next turn.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { deferred } from '../support/waits.js';
import { remoteFor, serversClosedAfterEach, startHandler } from './support.js';

const servers = serversClosedAfterEach();

describe('maxRunningTurns', () => {
  it('refuses a turn beyond it with 503 SERVER_BUSY and Retry-After', async () => {
    const release = deferred();
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'Holding' },
          { type: 'wait', until: release.promise },
          { type: 'done', finishReason: 'stop' },
        ],
        [
          { type: 'text_delta', text: 'Next' },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const server = await startHandler({ provider }, { maxRunningTurns: 1 });
    servers.push(server);
    const alice = remoteFor(server.url, 'alice');
    const first = await (await alice.newSession()).sendMessage('one');
    const other = await alice.newSession();
    const refused = await fetch(`${server.url}/sessions/${other.id}/turns`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'two' }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SERVER_BUSY');
    await expect(other.sendMessage('two')).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    release.resolve();
    expect((await first.result).status).toBe('completed');
    // The place is given back once the result settled.
    expect((await (await other.sendMessage('three')).result).status).toBe('completed');
  });
});
