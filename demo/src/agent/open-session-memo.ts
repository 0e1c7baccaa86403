/**
 * Which session this tab has open, so that a reload reopens it. Kept in `sessionStorage`: it
 * lasts as long as the tab, survives its reloads, and a new tab starts without one (it would
 * only find the chat held by the first). Where the agent ran is part of it: a session of the
 * demo server is not one of this browser's.
 * @module
 */

/** The session a tab had open. */
export interface OpenSessionMemo {
  readonly runsOn: 'browser' | 'server';
  readonly id: string;
  readonly modelId: string;
}

const MEMO_KEY = 'youyou-demo:open-session';

/** Remembers `memo` as this tab's open session, or forgets it (`null`). */
export function rememberOpenSession(memo: OpenSessionMemo | null, storage: Storage = sessionStorage): void {
  if (memo) storage.setItem(MEMO_KEY, JSON.stringify(memo));
  else storage.removeItem(MEMO_KEY);
}

/** The session this tab had open before it was reloaded, if any. */
export function rememberedOpenSession(storage: Storage = sessionStorage): OpenSessionMemo | null {
  try {
    const value = JSON.parse(storage.getItem(MEMO_KEY) ?? 'null') as Partial<OpenSessionMemo> | null;
    if (
      value &&
      (value.runsOn === 'browser' || value.runsOn === 'server') &&
      typeof value.id === 'string' &&
      typeof value.modelId === 'string'
    ) {
      return { runsOn: value.runsOn, id: value.id, modelId: value.modelId };
    }
  } catch {
    // Not ours, or damaged: nothing to reopen.
  }
  return null;
}
