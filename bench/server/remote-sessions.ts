/**
 * Remote sessions for the bench's drivers: a `RemoteAgent` per user on an instance's URL, and
 * the user of session `i` (ten users, so ownership checks see several).
 * @module
 */
import { RemoteAgent } from '../../src/remote.js';
import type { DrivenSession } from './drive.js';

/** The user of the `index`-th session. */
export const userOf = (index: number): string => `u${index % 10}`;

/** The remote agent of `userId` on `url`. */
export const remoteAgent = (url: string, userId: string): RemoteAgent =>
  new RemoteAgent({ url, headers: { authorization: `Bearer ${userId}` } });

/** Opens the `index`-th session of a driver on `url`, on model `modelId`. */
export function openRemote(url: string, modelId: string): (index: number) => Promise<DrivenSession> {
  return async (index) => {
    const session = await remoteAgent(url, userOf(index)).newSession({ modelId });
    return { sendMessage: (text) => session.sendMessage(text), close: () => session.close() };
  };
}
