/**
 * The connection to the database: opened lazily on first use, upgraded through the schema's
 * migrations, closed when another tab needs to upgrade, and reopened on the next use.
 * @module
 */
import { wrap, type IDBPDatabase, type IDBPTransaction } from 'idb';
import * as Errors from '../../error-constructors.js';
import type { ResolvedOptions } from './options.js';
import {
  DB_VERSION,
  upgradeSchema,
  type AgentDB,
  type StoreName,
  type UpgradeTransaction,
} from './schema.js';
import { errorName, toStorageError } from './storage-error.js';

/** A transaction of {@link AgentDB} over `S`. */
export type Transaction<S extends StoreName[], M extends IDBTransactionMode> = IDBPTransaction<AgentDB, S, M>;

/** One lazily opened, self-healing connection to the storages' database. */
export class Connection {
  #db: Promise<IDBPDatabase<AgentDB>> | null = null;

  constructor(private readonly options: ResolvedOptions) {}

  /**
   * A new transaction. If the connection was closed since it was opened (another tab upgraded
   * the database, or the browser closed it), it is reopened once.
   */
  async transaction<S extends StoreName[], M extends IDBTransactionMode>(
    stores: S,
    mode: M,
  ): Promise<Transaction<S, M>> {
    for (let attempt = 0; ; attempt++) {
      const opening = this.#open();
      const db = await opening;
      try {
        return db.transaction(stores, mode);
      } catch (error) {
        if (attempt > 0 || errorName(error) !== 'InvalidStateError') {
          throw toStorageError('starting a transaction', error);
        }
        this.#forget(opening);
      }
    }
  }

  /** Closes the connection (after its running transactions); the next use reopens it. */
  async close(): Promise<void> {
    const opening = this.#db;
    this.#db = null;
    (await opening?.catch(() => null))?.close();
  }

  #open(): Promise<IDBPDatabase<AgentDB>> {
    if (this.#db) return this.#db;
    const opening = this.#connect();
    // A failed open is not cached: the next use tries again.
    opening.catch(() => this.#forget(opening));
    return (this.#db = opening);
  }

  #forget(opening: Promise<unknown>): void {
    if (this.#db === opening) this.#db = null;
  }

  #connect(): Promise<IDBPDatabase<AgentDB>> {
    const { dbName, blockedTimeoutMs } = this.options;
    const factory = this.options.indexedDB ?? (globalThis.indexedDB as IDBFactory | undefined);
    if (!factory) return Promise.reject(Errors.storage('IndexedDB is not available'));
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(dbName, DB_VERSION);
    } catch (error) {
      return Promise.reject(toStorageError(`opening database '${dbName}'`, error));
    }
    request.onupgradeneeded = (event) => {
      const db = wrap(request.result) as IDBPDatabase<AgentDB>;
      upgradeSchema(
        db,
        event.oldVersion,
        DB_VERSION,
        wrap(request.transaction!) as unknown as UpgradeTransaction,
      );
    };
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let gaveUp = false;
      // Another tab holds an older version open and did not close on `versionchange`: wait a
      // while, then fail instead of hanging. The request stays queued; if it completes later,
      // its connection is closed at once and the next use opens a fresh one.
      request.onblocked = () => {
        timer ??= setTimeout(() => {
          gaveUp = true;
          reject(
            Errors.storage(
              `IndexedDB: opening database '${dbName}' is blocked: another tab keeps an older version open; close it and retry`,
            ),
          );
        }, blockedTimeoutMs);
      };
      (wrap(request) as Promise<IDBPDatabase<AgentDB>>).then(
        (db) => {
          clearTimeout(timer);
          if (gaveUp) return db.close();
          // Another tab wants to upgrade (or delete) the database: let it, and reopen on next use.
          db.addEventListener('versionchange', () => this.#drop(db));
          // The browser closed the connection (e.g. site data cleared): reopen on next use.
          db.addEventListener('close', () => this.#drop(db));
          resolve(db);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(toStorageError(`opening database '${dbName}'`, error));
        },
      );
    });
  }

  #drop(db: IDBPDatabase<AgentDB>): void {
    db.close();
    const opening = this.#db;
    void opening?.then(
      (current) => current === db && this.#forget(opening),
      () => undefined,
    );
  }
}
