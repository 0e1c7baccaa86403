/**
 * Writer fencing, shared by the storages: who may write a session is decided by an epoch.
 * `claimWriter` hands out a new epoch, greater than every epoch the storage handed out before
 * (for any session, and across deletes, so that a writer from before a delete never matches a
 * later claim); a write carrying an epoch is stored only while that epoch is the session's
 * current one. A write without an epoch is not checked (callers that never claim).
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import type { AgentError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { SaveEventOptions, SessionDraft } from '../ports/storage.js';
import { parseInput } from '../validate.js';
import { isoTimestamp } from '../iso-timestamp.js';

const EpochSchema = integer().check(z.minimum(0));

/** A stored epoch or epoch counter (validated when read back). */
export const StoredEpochSchema = EpochSchema;

/** `saveEvent`'s options; unknown fields are dropped (a later release may add some). */
const SaveEventOptionsSchema = z.optional(z.object({ writerEpoch: z.optional(EpochSchema) }));

/** A draft, as saved and as read back. */
export const SessionDraftSchema = z.strictObject({
  turnId: z.string(),
  text: z.string(),
  updatedAt: isoTimestamp(),
});

/** `saveEvent`'s options validated (`INVALID_INPUT`): the writer's epoch, if it gave one. */
export function parseWriterEpoch(options: SaveEventOptions | undefined): number | undefined {
  // Every write of a session passes here: the valid shapes are told apart without a parse, the
  // schema only words the error of an invalid one.
  if (options === undefined) return undefined;
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    const epoch: unknown = options.writerEpoch;
    if (epoch === undefined || (Number.isInteger(epoch) && (epoch as number) >= 0)) {
      return epoch as number | undefined;
    }
  }
  return parseInput(SaveEventOptionsSchema, options, 'options')?.writerEpoch;
}

/** A draft or `null` validated (`INVALID_INPUT`). */
export function parseDraft(draft: SessionDraft | null): SessionDraft | null {
  return draft === null ? null : parseInput(SessionDraftSchema, draft, 'draft');
}

/**
 * Why a write is refused, or `null` when it may be stored: a write with an epoch is stale
 * unless that epoch is the session's current one (`undefined` when no writer holds a claim:
 * never claimed, or deleted since).
 */
export function staleWriteError(
  sessionId: string,
  writerEpoch: number | undefined,
  current: number | undefined,
): AgentError | null {
  if (writerEpoch === undefined || writerEpoch === current) return null;
  return Errors.storage(
    `session '${sessionId}': the write of writer epoch ${writerEpoch} was refused, the current writer holds epoch ${current ?? 'none'}`,
    Errors.writerReplaced(sessionId),
  );
}

/**
 * The epoch of a new claim: above the storage-wide counter and above the session's own epoch
 * (should the counter have been lost).
 */
export function nextEpoch(counter: number, current: number | undefined): number {
  return Math.max(counter, current ?? 0) + 1;
}
