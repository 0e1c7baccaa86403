/**
 * Driving sessions: `sessions` sessions at once, each running `turns` turns one after another, the
 * same way for a local `Session` and a `RemoteSession` (both have `sendMessage` → a turn with
 * `events` and `result`). A turn counts as an error unless it completes with exactly the answer
 * the model server sent for its message.
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Observable } from 'rxjs';
import { AgentError, type AgentEvent, type TurnResult } from '../../src/index.js';
import { expectedAnswer } from './model-server.js';

/** What a turn of either kind offers. */
export interface TurnLike {
  events: Observable<AgentEvent>;
  result: Promise<TurnResult>;
}

/** An open session of either kind, with what ends it. */
export interface DrivenSession {
  sendMessage(text: string): Promise<TurnLike>;
  close(): Promise<void>;
}

/** What {@link driveSessions} measured. */
export interface DriveSummary {
  sessions: number;
  turns: number;
  errors: number;
  /** The first few errors, as text. */
  samples: string[];
  /** From the first turn started to the last turn ended (sessions open before, closed after). */
  wallMs: number;
  /** Each turn's time from `sendMessage` to its result, in ms. */
  turnMs: number[];
  /** What `probe` read after the last turn minus what it read before the first (e.g. CPU ms). */
  probed: number[];
}

/** The longest a bench turn may take before it counts as lost (a model answer takes well under 1 s). */
export const TURN_LIMIT_MS = 60_000;

/** `result`, or a failed result once {@link TURN_LIMIT_MS} have passed without it. */
export function boundedResult(result: Promise<TurnResult>): Promise<TurnResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<TurnResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          status: 'failed',
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          cost: null,
          error: new AgentError('INTERNAL_ERROR', `no result within ${TURN_LIMIT_MS} ms`),
        }),
      TURN_LIMIT_MS,
    );
  });
  return Promise.race([result, late]).finally(() => clearTimeout(timer));
}

/** Runs one turn with message `tag`; returns an error text, or `null` when it went as it should. */
export async function runTurn(session: DrivenSession, tag: string, deltas: number): Promise<string | null> {
  const turn = await session.sendMessage(tag);
  let text = '';
  turn.events.subscribe(({ payload }) => {
    if (payload.type === 'text_delta') text += payload.text;
  });
  const result = await boundedResult(turn.result);
  if (result.status !== 'completed') return `${result.status}: ${result.error?.message ?? ''}`;
  if (text !== expectedAnswer(deltas, tag)) return `wrong answer for ${tag}: ${text.slice(-40)}`;
  return null;
}

/** Opens `sessions` sessions, then runs their turns all at once (each session's one by one). */
export async function driveSessions(
  open: (index: number) => Promise<DrivenSession>,
  options: {
    sessions: number;
    turns: number;
    deltas: number;
    tag: string;
    /** Read right before the first turn and right after the last (not around opening and closing). */
    probe?: () => Promise<number[]>;
  },
): Promise<DriveSummary> {
  const summary: DriveSummary = {
    sessions: options.sessions,
    turns: 0,
    errors: 0,
    samples: [],
    wallMs: 0,
    turnMs: [],
    probed: [],
  };
  const fail = (error: unknown) => {
    summary.errors++;
    if (summary.samples.length < 5)
      summary.samples.push(error instanceof Error ? error.message : String(error));
  };
  const opened = await Promise.all(
    Array.from({ length: options.sessions }, (_, i) =>
      open(i).catch((error: unknown) => (fail(error), null)),
    ),
  );
  const probed = (await options.probe?.()) ?? [];
  const started = performance.now();
  await Promise.all(
    opened.map(async (session, i) => {
      if (!session) return;
      for (let t = 0; t < options.turns; t++) {
        const from = performance.now();
        try {
          const error = await runTurn(session, `${options.tag}-s${i}-t${t}`, options.deltas);
          if (error) fail(error);
        } catch (error) {
          fail(error);
        }
        summary.turns++;
        summary.turnMs.push(performance.now() - from);
      }
    }),
  );
  summary.wallMs = performance.now() - started;
  const after = (await options.probe?.()) ?? [];
  summary.probed = after.map((value, i) => value - probed[i]!);
  await Promise.all(opened.map((session) => session?.close().catch(fail)));
  return summary;
}
