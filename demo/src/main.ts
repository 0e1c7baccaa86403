/**
 * The demo's entry: sessions and memories in this browser's IndexedDB, then the app.
 * @module
 */
import { IndexedDbMemoryStorage, IndexedDbSessionStorage } from 'youyou-agent';
import { startDemo } from './app.js';

const DB_NAME = 'youyou-demo';

startDemo(document.getElementById('app')!, {
  sessions: new IndexedDbSessionStorage({ dbName: DB_NAME }),
  memories: new IndexedDbMemoryStorage({ dbName: DB_NAME }),
});
