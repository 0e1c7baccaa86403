/**
 * Options of the IndexedDB storages, validated once at construction.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../../vocabulary/checks.js';
import type { $ZodIssue } from 'zod/v4/core';
import { formatIssues } from '../../errors.js';
import { parseInput } from '../../validate.js';
import { DEFAULT_DB_NAME, type StoreName } from './schema.js';

/** A stored record that failed validation when read back; it is skipped, never deleted. */
export interface CorruptRecordInfo {
  /** The object store: `'sessions'`, `'events'`, `'memories'`, `'writers'` or `'drafts'`. */
  store: StoreName;
  /** Its key: a session or memory id, `[sessionId, seq]` for an event, `0` for the epoch counter. */
  key: IDBValidKey;
  /** What is wrong with it. */
  issues: readonly $ZodIssue[];
}

/** Options of {@link IndexedDbSessionStorage} and {@link IndexedDbMemoryStorage}. */
export interface IndexedDbStorageOptions {
  /** Database name. Default `'youyou-agent'`; both storages may share one database. */
  dbName?: string;
  /**
   * The IndexedDB factory. Default `globalThis.indexedDB`, looked up on first use. In Node,
   * `import 'fake-indexeddb/auto'` and pass `new IDBFactory()` to isolate a test.
   */
  indexedDB?: IDBFactory;
  /** Called for each corrupt record met while reading. Default: `console.warn`. */
  onCorruptRecord?: (info: CorruptRecordInfo) => void;
  /**
   * How long to wait, in ms, when another tab keeps an older version of the database open and
   * does not close it, before failing with `STORAGE_ERROR`. Default 10 000.
   */
  blockedTimeoutMs?: number;
}

/** Options with defaults applied (the factory stays lazy). */
export interface ResolvedOptions {
  dbName: string;
  indexedDB: IDBFactory | undefined;
  onCorruptRecord: (info: CorruptRecordInfo) => void;
  blockedTimeoutMs: number;
}

const OptionsSchema = z.optional(
  z.strictObject({
    dbName: z.optional(z.string().check(z.minLength(1))),
    indexedDB: z.optional(
      z.custom<IDBFactory>((v) => typeof (v as IDBFactory | null)?.open === 'function', {
        error: 'expected an IDBFactory',
      }),
    ),
    onCorruptRecord: z.optional(
      z.custom<(info: CorruptRecordInfo) => void>((v) => typeof v === 'function', {
        error: 'expected a function',
      }),
    ),
    blockedTimeoutMs: z.optional(integer().check(z.minimum(0))),
  }),
);

/** Validates `options` (`INVALID_INPUT`) and applies the defaults. */
export function resolveOptions(options: unknown): ResolvedOptions {
  const parsed = parseInput(OptionsSchema, options, 'options') ?? {};
  return {
    dbName: parsed.dbName ?? DEFAULT_DB_NAME,
    indexedDB: parsed.indexedDB,
    onCorruptRecord: parsed.onCorruptRecord ?? warnCorruptRecord,
    blockedTimeoutMs: parsed.blockedTimeoutMs ?? 10_000,
  };
}

function warnCorruptRecord({ store, key, issues }: CorruptRecordInfo): void {
  console.warn(
    `youyou-agent: skipped a corrupt record in IndexedDB store '${store}' (key ${JSON.stringify(key)}): ${formatIssues(issues)}`,
  );
}
