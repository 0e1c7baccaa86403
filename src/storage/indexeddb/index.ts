/**
 * IndexedDB storages for sessions and memories (one database, see `schema.ts`).
 * @module
 */
export { IndexedDbSessionStorage } from './session-storage.js';
export { IndexedDbMemoryStorage } from './memory-storage.js';
export type { IndexedDbStorageOptions, CorruptRecordInfo } from './options.js';
export { DEFAULT_DB_NAME, DB_VERSION } from './schema.js';
