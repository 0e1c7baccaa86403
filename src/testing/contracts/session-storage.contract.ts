/**
 * The contract every {@link SessionStorage} must meet, written once and run against each
 * implementation: under vitest in Node, and inside a real browser page. Framework-agnostic:
 * each case takes a fresh, empty storage and rejects (throws) when the storage breaks a rule.
 *
 * Paging guarantee checked here (see `src/storage/cursor.ts`): while a client pages from `null`
 * to the end, every session that is not changed meanwhile comes exactly once and in order, and
 * no session comes twice; a session created or updated meanwhile may be missed by that pass.
 *
 * The optional members have cases of their own, run when the storage has the member: writer
 * fencing (`claimWriter` with `saveEvent(..., { writerEpoch })`) and drafts (`saveDraft` with
 * `loadDraft`). A storage without them passes those cases untouched.
 *
 * The cases live in `session-storage/`, one file per thing they check (events, summaries, paging,
 * search, delete, rejections, robustness, fencing, drafts), sharing the fixtures of
 * `session-storage/fixtures.ts`; this file puts them together in reading order, like a
 * specification.
 * @module
 */
import type { SessionStorage } from '../../ports/storage.js';
import type { ContractCase } from './check.js';
import { eventsCases } from './session-storage/events.js';
import { summariesCases } from './session-storage/summaries.js';
import { pagingCases } from './session-storage/paging.js';
import { searchCases } from './session-storage/search.js';
import { deleteCases } from './session-storage/delete.js';
import { rejectionsCases } from './session-storage/rejections.js';
import { robustnessCases } from './session-storage/robustness.js';
import { fencingCases } from './session-storage/fencing.js';
import { draftsCases } from './session-storage/drafts.js';

export type { ContractCase } from './check.js';

/** The cases of the {@link SessionStorage} contract. */
export const sessionStorageContract: ContractCase<SessionStorage>[] = [
  ...eventsCases,
  ...summariesCases,
  ...pagingCases,
  ...searchCases,
  ...deleteCases,
  ...rejectionsCases,
  ...robustnessCases,
  ...fencingCases,
  ...draftsCases,
];
