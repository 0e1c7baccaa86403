/**
 * A session another instance holds, read from storage without taking it over: its stored
 * messages, the conversation a resume would show (with the running turn's text as far as its
 * draft has it, and without the context meter, which only the holder measures) and its
 * interrupted turn. A turn waiting for a decision shows as awaiting approval, as on its holder,
 * and an unfinished call is `mutating` as the agent's tools register it.
 * @module
 */
import type { Agent } from '../agent.js';
import { systemClock } from '../clock.js';
import { itemsFromStoredEvents } from '../conversation/from-stored-events.js';
import type { ConversationItem } from '../conversation/schema.js';
import { Errors } from '../errors.js';
import { loadSessionForResume } from '../persistence/resume.js';
import { isTurnAwareLock } from '../ports/session-lock.js';
import { storedUsageTotals } from '../persistence/usage-records.js';
import { interruptedTurnView } from '../runtime/interrupted-turn.js';
import { serverPort } from '../runtime/server-port.js';
import type { SessionState } from '../remote/wire.js';
import { withStoredLastTurn } from './stored-last-turn.js';

/** How long reading a stored session may take. */
const READ_TIMEOUT_MS = 30_000;

/** The stored state of `sessionId`, through `agent`'s storage. */
export async function storedState(agent: Agent, sessionId: string): Promise<SessionState> {
  const server = serverPort(agent);
  const storage = server.storage;
  if (!storage) throw Errors.sessionNotFound(sessionId);
  const loaded = await loadSessionForResume(storage, sessionId, {
    timeoutMs: READ_TIMEOUT_MS,
    clock: systemClock,
  });
  const { usage, cost } = storedUsageTotals(loaded.events);
  const interrupted = loaded.interrupted;
  const awaiting = new Set(interrupted?.pendingApprovals.map((approval) => approval.callId));
  // Running only while a live lease runs it: a turn whose holder is gone shows as interrupted.
  const running = interrupted !== null && (await turnRunsElsewhere(agent, sessionId, interrupted.turnId));
  const items = itemsFromStoredEvents(loaded.events)
    .snapshot()
    .map((item) =>
      item.kind === 'tool' && item.status === 'running' && awaiting.has(item.callId)
        ? { ...item, status: 'awaiting_approval' as const }
        : item,
    );
  // The running turn's streamed text so far, from its draft (saved at most once a second).
  const partial = interrupted?.partialText;
  const draft: ConversationItem[] = partial
    ? [
        {
          kind: 'assistant',
          id: `draft-${interrupted!.turnId}`,
          text: partial,
          reasoning: '',
          status: running ? 'streaming' : 'incomplete',
        },
      ]
    : [];
  return withStoredLastTurn(loaded.events, {
    id: sessionId,
    messages: loaded.messages,
    conversation: {
      items: [...items, ...draft],
      turn: interrupted
        ? awaiting.size > 0
          ? { id: interrupted.turnId, status: 'awaiting_approval' }
          : running
            ? { id: interrupted.turnId, status: 'running' }
            : null
        : null,
      usage,
      cost,
      context: { estimatedTokens: 0, contextWindow: 1, compactAt: 1 },
    },
    interruptedTurn: interrupted ? interruptedTurnView(interrupted, (name) => server.isMutating(name)) : null,
  });
}

/**
 * Whether the holder of the session's lease runs `turnId` now (a lock that records no turns
 * cannot tell: then the stored history is taken at its word).
 */
async function turnRunsElsewhere(agent: Agent, sessionId: string, turnId: string): Promise<boolean> {
  const lock = serverPort(agent).lock;
  if (!lock || !isTurnAwareLock(lock)) return true;
  const lease = await lock.peek(sessionId);
  return lease.live && lease.turnId === turnId;
}
