/**
 * Reasoning is streamed but not in a session's stored messages: for `GET …/chat/:id/messages` to
 * show the reasoning parts the live stream showed (same ids, same text), a turn started through
 * `/chat` stores each one as a `chat_reasoning` record once it has ended.
 * @module
 */
import type { RunningTurn } from '../../session.js';
import type { SessionEvent } from '../../types.js';
import type { HostedSession } from '../hosted-session.js';
import { ChunkMapper } from './chunk-mapper.js';

/** The metadata key of one reasoning part of a turn: `{ turnId, step, id, text }`. */
export const CHAT_REASONING_KEY = 'chat_reasoning';

/** Follows `turn` and stores each of its reasoning parts when it ends (a failed write only loses the part). */
export function recordReasoning(hosted: HostedSession, turn: RunningTurn): void {
  const mapper = new ChunkMapper(turn.id);
  const texts = new Map<string, string>();
  let step = -1;
  turn.events.subscribe(({ payload }) => {
    for (const chunk of mapper.push(payload)) {
      if (chunk.type === 'start-step') step++;
      else if (chunk.type === 'reasoning-start') texts.set(chunk.id, '');
      else if (chunk.type === 'reasoning-delta') texts.set(chunk.id, texts.get(chunk.id)! + chunk.delta);
      else if (chunk.type === 'reasoning-end') {
        const event: SessionEvent = {
          timestamp: new Date().toISOString(),
          payload: {
            type: 'metadata',
            key: CHAT_REASONING_KEY,
            value: { turnId: turn.id, step, id: chunk.id, text: texts.get(chunk.id)! },
          },
        };
        texts.delete(chunk.id);
        void hosted.server.storage?.saveEvent(hosted.id, event).catch(() => {});
      }
    }
  });
}
