/**
 * The per-turn line under each answer: status, tokens, cost and wall time of one turn.
 * @module
 */
import type { TokenUsage, TurnResult } from 'youyou-agent';
import type { ChatTurn } from './chat-agent.js';

/** One finished turn, as the chat shows it. */
export interface TurnSummary {
  turnId: string;
  status: TurnResult['status'];
  usage: TokenUsage;
  /** Sum of the turn's reported costs; `null` when no response had a known cost. */
  cost: number | null;
  durationMs: number;
}

/** Follows `turn` and resolves with its summary once it has ended. */
export function summarizeTurn(turn: ChatTurn): Promise<TurnSummary> {
  const started = performance.now();
  let cost: number | null = null;
  const subscription = turn.events.subscribe(({ payload }) => {
    if (payload.type === 'usage' && payload.cost !== undefined) cost = (cost ?? 0) + payload.cost;
  });
  return turn.result.then((result) => {
    subscription.unsubscribe();
    return {
      turnId: turn.id,
      status: result.status,
      usage: result.usage,
      cost,
      durationMs: performance.now() - started,
    };
  });
}
