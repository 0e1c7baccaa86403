/**
 * `RemoteSession.activeTurn`: the turn that runs on the server, whoever started it, known from
 * `resumeSession` alone — a reloaded page or a second device approves a waiting call through it,
 * and the first device's `result` settles with the turn's real outcome.
 */
import { describe, expect, it } from 'vitest';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import { defineTool } from '../../src/index.js';
import * as z from 'zod/mini';
import { remoteFor, serversClosedAfterEach, startHandler } from '../server/support.js';
import type { RemoteTurn } from '../../src/remote.js';

const servers = serversClosedAfterEach();

/** A handler whose model asks for one `transfer` (which needs approval), then answers. */
async function world() {
  let runs = 0;
  const transfer = defineTool({
    name: 'transfer',
    description: 'Moves money',
    parameters: z.object({ amount: z.number() }),
    mutating: true,
    needsApproval: true,
    execute: async ({ arguments: { amount } }) => {
      runs++;
      return `moved ${amount}`;
    },
  });
  const provider = new ScriptedModelProvider({
    script: [
      reply.toolCalls([{ name: 'transfer', arguments: { amount: 7 }, callId: 'c1' }]),
      reply.text('Moved it.'),
    ],
  });
  const server = await startHandler({ provider, tools: [transfer] });
  servers.push(server);
  return { server, runs: () => runs };
}

const approvalRequested = (turn: RemoteTurn) =>
  new Promise<void>((resolve) =>
    turn.events.subscribe((e) => e.payload.type === 'approval_requested' && resolve()),
  );

describe('activeTurn', () => {
  it('after resumeSession shows a turn awaiting approval; a second device approves it; the tool runs once; both results settle completed', async () => {
    const { server, runs } = await world();
    const first = await remoteFor(server.url, 'alice').newSession();
    const turn = await first.sendMessage('move 7');
    await approvalRequested(turn);
    expect(first.activeTurn).toBe(turn);

    const second = await remoteFor(server.url, 'alice').resumeSession(first.id);
    const active = second.activeTurn!;
    expect(active.id).toBe(turn.id);
    expect(active.pendingApprovals).toMatchObject([
      { callId: 'c1', toolName: 'transfer', arguments: { amount: 7 } },
    ]);
    await active.approve('c1');

    const [mine, theirs] = await Promise.all([turn.result, active.result]);
    expect(mine.status).toBe('completed');
    expect(theirs.status).toBe('completed');
    expect(runs()).toBe(1);
    expect(first.activeTurn).toBeNull();
    expect(second.activeTurn).toBeNull();
    await first.close();
  });

  it('a reloaded page denies the waiting call through activeTurn and the turn goes on', async () => {
    const { server, runs } = await world();
    const before = await remoteFor(server.url, 'alice').newSession();
    await approvalRequested(await before.sendMessage('move 7'));
    // The page reloads: a new RemoteAgent, the old one forgotten.
    const after = await remoteFor(server.url, 'alice').resumeSession(before.id);
    const active = after.activeTurn!;
    await active.deny('c1', { reason: 'not today' });
    expect((await active.result).status).toBe('completed');
    expect(runs()).toBe(0);
    await after.close();
  });

  it('a second device cancels the turn through activeTurn: the first device settles cancelled', async () => {
    const { server } = await world();
    const first = await remoteFor(server.url, 'alice').newSession();
    const turn = await first.sendMessage('move 7');
    await approvalRequested(turn);
    const second = await remoteFor(server.url, 'alice').resumeSession(first.id);
    second.activeTurn!.cancel();
    expect((await turn.result).status).toBe('cancelled');
    await first.close();
  });

  it('is null when no turn runs', async () => {
    const { server } = await world();
    const session = await remoteFor(server.url, 'alice').newSession();
    expect(session.activeTurn).toBeNull();
    const resumed = await remoteFor(server.url, 'alice').resumeSession(session.id);
    expect(resumed.activeTurn).toBeNull();
    await session.close();
  });
});
