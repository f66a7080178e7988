import {
  CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type KyselyPlugin, type QueryResult,
  type QueryId,
} from 'kysely';
import {
  type ScopeSettings, beginStatement, beginWithSettings, sameSettings, setSettings, settingsOf,
} from './scope-settings.js';
import { currentScope, type TenantScope } from './tenant-scope.js';

export { SERVICE_ROLE, TENANTS_SETTING } from './scope-settings.js';

/**
 * Where a connection keeps its scope's settings:
 * - `session`: the embedded store's one connection, that nothing else shares. The settings are
 *   sent only when they change on it; they are set at session level before a transaction starts
 *   (with SET LOCAL when a query inside one needs others), so a rolled-back transaction never
 *   leaves the cached state wrong.
 * - `transaction`: PostgreSQL, possibly through a transaction-pooling PgBouncer that hands a
 *   server connection to another client after every transaction. The settings live in a
 *   transaction only (`set_config(..., true)`): sent with its `begin`, and a statement outside a
 *   transaction runs in one of its own. Nothing is left on a server connection for the next
 *   client, and nothing is assumed of what the last one left.
 */
export type ScopeMode = 'session' | 'transaction';

interface ConnectionState {
  /** Session mode: what the session holds, as far as this process set it (undefined: not yet known). */
  session?: ScopeSettings;
  /** Inside a transaction: what it holds locally (undefined: nothing yet, the session's). */
  local?: ScopeSettings;
  inTransaction: boolean;
}

/** Statements PostgreSQL refuses inside a transaction block; in the owner's scope they run as they are. */
const OUTSIDE_TRANSACTIONS = /^\s*(vacuum\b|(create|drop)\s+(unique\s+)?index\s+concurrently\b|reindex\b.*\bconcurrently\b)/is;

/**
 * Wraps a dialect's driver so that every query runs as the service role with the tenants of the
 * current scope (tenant-scope.ts), or as the connecting role for the owner's work.
 */
export function scopedConnections(dialect: Dialect, mode: ScopeMode = 'session'): Dialect {
  return {
    createDriver: () => scopedDriver(dialect.createDriver(), mode),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

function scopedDriver(driver: Driver, mode: ScopeMode): Driver {
  const states = new WeakMap<DatabaseConnection, ConnectionState>();
  const wrappers = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const inners = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const stateOf = (inner: DatabaseConnection) => {
    let state = states.get(inner);
    if (!state) states.set(inner, (state = { inTransaction: false }));
    return state;
  };
  const innerOf = (connection: DatabaseConnection) => inners.get(connection) ?? connection;
  const scoped = mode === 'session' ? sessionScoped : transactionScoped;

  const wrap = (inner: DatabaseConnection): DatabaseConnection => {
    let wrapper = wrappers.get(inner);
    if (wrapper) return wrapper;
    wrapper = {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
        scoped(inner, stateOf(inner), query, () => inner.executeQuery<R>(query)),
      streamQuery: async function* <R>(query: CompiledQuery, chunkSize: number) {
        const state = stateOf(inner);
        // A transaction of its own would have to outlive the generator's consumer: streams go in the caller's.
        if (mode === 'transaction' && !state.inTransaction) throw new Error('a streamed query needs a transaction on PostgreSQL');
        await scoped(inner, state, query, async () => {});
        yield* inner.streamQuery<R>(query, chunkSize);
      },
    };
    wrappers.set(inner, wrapper);
    inners.set(wrapper, inner);
    return wrapper;
  };

  const endTransaction = (connection: DatabaseConnection) => {
    const state = stateOf(innerOf(connection));
    state.inTransaction = false;
    state.local = undefined;
  };

  return {
    init: (options) => driver.init(options),
    acquireConnection: async (options) => wrap(await driver.acquireConnection(options)),
    beginTransaction: async (connection, settings) => {
      const inner = innerOf(connection);
      const state = stateOf(inner);
      // Outside any scope the transaction may be one of a fixed scope (inFixedScope): its first query says.
      const scope = currentScope();
      if (mode === 'transaction' && scope) {
        const wanted = settingsOf(scope);
        try {
          await inner.executeQuery(beginWithSettings(beginStatement(settings), wanted));
        } catch (error) {
          // Settings that failed after the begin left an aborted transaction, and the caller
          // never gets to roll it back: end it before the connection goes back to the pool.
          await inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
          throw error;
        }
        state.local = wanted;
      } else {
        if (mode === 'session' && scope) await applySessionScope(inner, state, settingsOf(scope));
        await driver.beginTransaction(inner, settings);
      }
      state.inTransaction = true;
    },
    commitTransaction: async (connection) => {
      try {
        await driver.commitTransaction(innerOf(connection));
      } finally {
        endTransaction(connection);
      }
    },
    rollbackTransaction: async (connection) => {
      try {
        await driver.rollbackTransaction(innerOf(connection));
      } finally {
        endTransaction(connection);
      }
    },
    ...(driver.savepoint && {
      savepoint: (connection, name, compile) => driver.savepoint!(innerOf(connection), name, compile),
    }),
    ...(driver.rollbackToSavepoint && {
      rollbackToSavepoint: async (connection, name, compile) => {
        await driver.rollbackToSavepoint!(innerOf(connection), name, compile);
        // A rolled-back savepoint takes back the settings made since: they are unknown again.
        stateOf(innerOf(connection)).local = undefined;
      },
    }),
    ...(driver.releaseSavepoint && {
      releaseSavepoint: (connection, name, compile) => driver.releaseSavepoint!(innerOf(connection), name, compile),
    }),
    releaseConnection: (connection, options) => driver.releaseConnection(innerOf(connection), options),
    destroy: (options) => driver.destroy(options),
  };
}

const wantedFor = (query: CompiledQuery) => settingsOf(fixedScopes.get(query.queryId) ?? currentScope());

type Scoped = <T>(connection: DatabaseConnection, state: ConnectionState, query: CompiledQuery, run: () => Promise<T>) => Promise<T>;

const sessionScoped: Scoped = async (connection, state, query, run) => {
  const wanted = wantedFor(query);
  if (state.inTransaction) {
    if (!sameSettings(state.local ?? state.session, wanted)) {
      await connection.executeQuery(setSettings(wanted, true));
      state.local = wanted;
    }
  } else {
    await applySessionScope(connection, state, wanted);
  }
  return run();
};

async function applySessionScope(connection: DatabaseConnection, state: ConnectionState, wanted: ScopeSettings) {
  if (sameSettings(state.session, wanted)) return;
  await connection.executeQuery(setSettings(wanted, false));
  state.session = wanted;
}

const transactionScoped: Scoped = async (connection, state, query, run) => {
  const wanted = wantedFor(query);
  if (state.inTransaction) {
    if (!sameSettings(state.local, wanted)) {
      await connection.executeQuery(setSettings(wanted, true));
      state.local = wanted;
    }
    return run();
  }
  if (wanted.role === 'none' && OUTSIDE_TRANSACTIONS.test(query.sql)) return run();
  // Sent together: on a pipelining connection (the PostgreSQL pools) one round trip, as the
  // statement alone would be. Read in order: a failed begin fails the statement's answer too.
  const begun = connection.executeQuery(beginWithSettings('begin', wanted));
  const ran = run();
  const committed = connection.executeQuery<{ command?: string }>(CompiledQuery.raw('commit'));
  const [begin, statement, commit] = await Promise.allSettled([begun, ran, committed]);
  if (begin.status === 'rejected') throw begin.reason;
  if (statement.status === 'rejected') throw statement.reason;
  if (commit.status === 'rejected') throw commit.reason;
  // PostgreSQL answers COMMIT with ROLLBACK when the transaction could not commit.
  if (commit.value.rows[0]?.command === 'ROLLBACK') throw new Error('the statement\'s transaction was rolled back');
  return statement.value;
};

const fixedScopes = new WeakMap<QueryId, TenantScope>();

/**
 * The same database with every query run in `scope`, whatever the caller's: for code that is
 * not inside one (a test's checks, a command) or that must not take the caller's.
 */
export function inFixedScope<DB>(db: Kysely<DB>, scope: TenantScope): Kysely<DB> {
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      fixedScopes.set(queryId, scope);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return db.withPlugin(plugin);
}
