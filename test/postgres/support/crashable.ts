/**
 * A `SqlClient` wrapper for fault tests: `crash()` makes every later call hang up (reject), as a
 * process that died would stop answering, and `withoutListen` hides `listen` (a driver or pooler
 * that cannot `LISTEN`).
 */
import type { SqlClient } from '../../../src/postgres.js';

export interface Crashable {
  sql: SqlClient;
  crash(): void;
}

export function crashable(inner: SqlClient, options: { withoutListen?: boolean } = {}): Crashable {
  let crashed = false;
  const guard = () => {
    if (crashed) throw new Error('this instance crashed');
  };
  const sql: SqlClient = {
    async query(text, params) {
      guard();
      return inner.query(text, params);
    },
    async transaction(work) {
      guard();
      return inner.transaction(work);
    },
  };
  if (inner.listen && !options.withoutListen) {
    const listen = inner.listen.bind(inner);
    sql.listen = (channel, onNotify) => listen(channel, (payload) => crashed || onNotify(payload));
  }
  return {
    sql,
    crash: () => {
      crashed = true;
    },
  };
}
