/**
 * Reading the event streams of sessions and turns: {@link recordEvents} (everything from now on),
 * {@link eventsOf} (a whole turn, once it has ended), {@link firstEvent} (wait for one event).
 * @module
 */
import { filter, firstValueFrom, lastValueFrom, toArray, type Observable } from 'rxjs';
import type { AgentEvent, AgentEventPayload, RunningTurn } from '../../src/index.js';

/** The events a stream delivered so far, and whether it has completed. */
export interface EventRecord {
  /** Every event received, in order (the array grows as events arrive). */
  readonly events: AgentEvent[];
  /** Whether the stream has completed. */
  readonly completed: boolean;
}

/**
 * Subscribes to `source` now and records what it delivers from then on.
 * @example
 * const recorded = recordEvents(session.events);
 * await (await session.sendMessage('hi')).result;
 * types(recorded.events); // ['text_delta', 'turn_complete']
 */
export function recordEvents(source: Observable<AgentEvent>): EventRecord {
  const events: AgentEvent[] = [];
  let completed = false;
  source.subscribe({ next: (event) => events.push(event), complete: () => (completed = true) });
  return {
    events,
    get completed() {
      return completed;
    },
  };
}

/** All events of a turn (replayed), once it has ended. */
export function eventsOf(turn: RunningTurn): Promise<AgentEvent[]> {
  return lastValueFrom(turn.events.pipe(toArray()));
}

/** The first event of `type` that `source` delivers (a turn's stream also replays what it already had). */
export function firstEvent(
  source: Observable<AgentEvent>,
  type: AgentEventPayload['type'],
): Promise<AgentEvent> {
  return firstValueFrom(source.pipe(filter((event) => event.payload.type === type)));
}

/** Resolves once `turn` announced that `callId` waits for approval (its stream replays). */
export function approvalRequested(turn: RunningTurn, callId: string): Promise<AgentEvent> {
  return firstValueFrom(
    turn.events.pipe(filter((e) => e.payload.type === 'approval_requested' && e.payload.callId === callId)),
  );
}

/** The payloads of the `error` events among `events`, in order. */
export const errorPayloads = (events: readonly AgentEvent[]) =>
  events.flatMap((e) => (e.payload.type === 'error' ? [e.payload] : []));

/** The payload types of `events`, in order. */
export const types = (events: readonly AgentEvent[]): string[] => events.map((e) => e.payload.type);
