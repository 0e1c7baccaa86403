/**
 * The browser's user of server mode: a random id made once and kept in `localStorage`, sent with
 * every request to the demo server in {@link DEMO_USER_HEADER}, so each browser has its own
 * sessions there. A demo's notion of a user, not a login: the dev server's per-start token is
 * what keeps other sites out.
 * @module
 */

/** The header that names the browser's user id (the demo server reads it too). */
export const DEMO_USER_HEADER = 'x-youyou-demo-user';

/** What a user id looks like (the demo server refuses anything else with 401). */
export const DEMO_USER_ID = /^[A-Za-z0-9_-]{8,64}$/;

const USER_KEY = 'youyou-demo:user';

/**
 * This browser's user id, made on first use.
 * @example
 * fetch('/agent/sessions', { headers: { [DEMO_USER_HEADER]: demoUserId() } });
 */
export function demoUserId(storage: Storage = localStorage): string {
  const kept = storage.getItem(USER_KEY);
  if (kept && DEMO_USER_ID.test(kept)) return kept;
  const made = `user-${crypto.randomUUID()}`;
  storage.setItem(USER_KEY, made);
  return made;
}
