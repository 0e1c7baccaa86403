/**
 * What the benches' Chromium pages share.
 * @module
 */

/** Deletes the IndexedDB database `name` (a no-op when there is none). */
export function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
  });
}
