/**
 * What each route does to a session held here: start or continue a turn, decide an approval,
 * cancel — including a turn this instance took over from another one.
 * @module
 */
import { Errors } from '../errors.js';
import type { SendMessageOptions, RunningTurn } from '../session.js';
import type { UserInput } from '../types.js';
import type { $ZodType } from 'zod/v4/core';
import type { HostedSession } from './hosted-session.js';

/** How long a taken-over turn may take to ask again for the approval being decided. */
const APPROVAL_READY_MS = 10_000;

/** The options of a remote turn, with `output.name` looked up in the handler's `outputs`. */
export function turnOptions(
  options: { output?: { name: string; maxRepairs?: number }; budget?: unknown } | undefined,
  outputs: Record<string, $ZodType>,
): SendMessageOptions {
  const result: SendMessageOptions = {};
  if (options?.output) {
    const { name, maxRepairs } = options.output;
    const schema = Object.hasOwn(outputs, name) ? outputs[name] : undefined;
    if (!schema) throw Errors.invalidInput(`invalid options.output.name: no output named '${name}'`);
    result.output = { schema, name, ...(maxRepairs !== undefined && { maxRepairs }) };
  }
  if (options?.budget !== undefined) result.budget = options.budget as SendMessageOptions['budget'];
  return result;
}

/** Starts a turn in a session held here (`TURN_BUSY` while one runs). */
export async function startTurn(
  hosted: HostedSession,
  input: unknown,
  options: SendMessageOptions,
): Promise<RunningTurn> {
  if (hosted.running) throw Errors.turnBusy();
  const turn = await hosted.session.sendMessage(input as UserInput | string, options);
  hosted.track(turn);
  return turn;
}

/**
 * The answer to a turn or continue request: `stream`, the turn's frames (already listening, so
 * nothing the turn emits meanwhile is missed), once the turn's start is stored. An instance that
 * gets the next request for this session decides from the stored history whether a turn runs
 * here (409) or not, so it must not be answered before. A start the storage refused for another
 * writer means another instance took the session before this copy heard of it (its lease's loss
 * is on its way): the turn cannot run here, `TURN_BUSY`.
 */
export async function onceStarted(hosted: HostedSession, stream: Response): Promise<Response> {
  if (await hosted.server.stored()) return stream;
  await stream.body?.cancel();
  throw Errors.turnBusy();
}

/** Continues the interrupted turn of a session held here. */
export async function continueTurn(
  hosted: HostedSession,
  options: { rerunMaybeExecuted?: boolean } | undefined,
): Promise<RunningTurn> {
  // The server already went on with the turn a stopped instance left: the caller follows it.
  if (hosted.running && hosted.running === hosted.recovered) return hosted.running;
  if (hosted.running) throw Errors.turnBusy();
  const turn = await hosted.session.continueTurn(options ?? {});
  hosted.track(turn);
  return turn;
}

/**
 * Decides a pending approval. A turn this instance took over while it waited for approval is
 * continued here first (it asks again), then decided.
 */
export async function decide(
  hosted: HostedSession,
  turnId: string,
  callId: string,
  decision: { approved: boolean; always?: boolean; reason?: string },
): Promise<void> {
  let turn = hosted.running?.id === turnId ? hosted.running : null;
  if (!turn) {
    const interrupted = hosted.session.interruptedTurn;
    if (hosted.running || interrupted?.turnId !== turnId) throw Errors.approvalNotPending(callId);
    // The decision is for the request that was pending when the turn was taken over. One the
    // other instance had decided already (the same decision sent to both) must not decide a
    // later request of the same call id: the turn goes on here, the decision is not applied.
    const pending = interrupted.pendingApprovals.some((approval) => approval.callId === callId);
    turn = await continueTurn(hosted, undefined);
    if (!pending) throw Errors.approvalNotPending(callId);
    await askedAgain(turn, callId);
  }
  const { approved, always, reason } = decision;
  if (approved) await turn.approve(callId, always === undefined ? {} : { always });
  else
    await turn.deny(callId, {
      ...(reason !== undefined && { reason }),
      ...(always !== undefined && { always }),
    });
}

/**
 * Cancels a turn: the one running here, or — taken over from another instance — the
 * interrupted one, which is discarded. Resolves once the turn's end is stored. A no-op for a
 * turn that has ended.
 */
export async function cancel(hosted: HostedSession, turnId: string): Promise<void> {
  const running = hosted.running?.id === turnId ? hosted.running : null;
  if (running) {
    running.cancel();
    // Settles once the turn has ended and is durable: its `turn_ended` is stored.
    await running.result;
  } else if (!hosted.running && hosted.session.interruptedTurn?.turnId === turnId) {
    await discard(hosted);
  } else return;
  await hosted.server.stored();
}

/** Discards the interrupted turn of a session held here; resolves once that is stored. */
export async function discard(hosted: HostedSession): Promise<void> {
  const turnId = hosted.session.interruptedTurn?.turnId;
  await hosted.session.discardInterruptedTurn();
  if (turnId !== undefined) hosted.discarded(turnId);
  await hosted.server.stored();
}

/** Resolves once `turn` waits for `callId` (or has ended); bounded. */
function askedAgain(turn: RunningTurn, callId: string): Promise<void> {
  return new Promise<void>((resolve) => {
    let finished = false;
    let sub: { unsubscribe(): void } | undefined;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      sub?.unsubscribe();
      resolve();
    };
    const waits = () => turn.pendingApprovals.some((a) => a.callId === callId);
    const timer = setTimeout(done, APPROVAL_READY_MS);
    sub = turn.events.subscribe({ next: () => waits() && done(), complete: done, error: done });
    if (finished) sub.unsubscribe();
    else if (waits()) done();
  });
}
