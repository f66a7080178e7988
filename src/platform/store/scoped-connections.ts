import {
  CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type KyselyPlugin, type QueryResult,
  type QueryId,
} from 'kysely';
import { currentScope, scopeSetting, type TenantScope } from './tenant-scope.js';

/** The role the service's queries run as: not superuser, not the tables' owner, no BYPASSRLS. */
export const SERVICE_ROLE = 'ugs_app';
/** The setting row-level security reads the current work's tenants from. */
export const TENANTS_SETTING = 'ugs.tenant_ids';

interface Settings {
  role: string;
  tenants: string;
}

interface ConnectionState {
  /** What the session holds, as far as this process set it (undefined: not yet known). */
  session?: Settings;
  /** Inside a transaction whose scope differs from the session's: what SET LOCAL holds. */
  local?: Settings;
  inTransaction: boolean;
}

/**
 * Wraps a dialect's driver so that every query runs as the service role with the tenants of the
 * current scope (tenant-scope.ts), or as the connecting role for the owner's work. The settings
 * are sent only when they change on that connection: a connection that served the same tenant
 * before costs nothing more. They are set at session level before a transaction starts (and
 * with SET LOCAL when a query inside one needs others), so a rolled-back transaction never
 * leaves the cached state wrong.
 */
export function scopedConnections(dialect: Dialect): Dialect {
  return {
    createDriver: () => scopedDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

function scopedDriver(driver: Driver): Driver {
  const states = new WeakMap<DatabaseConnection, ConnectionState>();
  const wrappers = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const inners = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const stateOf = (inner: DatabaseConnection) => {
    let state = states.get(inner);
    if (!state) states.set(inner, (state = { inTransaction: false }));
    return state;
  };
  const innerOf = (connection: DatabaseConnection) => inners.get(connection) ?? connection;

  const wrap = (inner: DatabaseConnection): DatabaseConnection => {
    let wrapper = wrappers.get(inner);
    if (wrapper) return wrapper;
    wrapper = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        await applyScope(inner, stateOf(inner), query);
        return inner.executeQuery<R>(query);
      },
      streamQuery: async function* <R>(query: CompiledQuery, chunkSize: number) {
        await applyScope(inner, stateOf(inner), query);
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
      if (currentScope()) await applyScope(inner, state);
      await driver.beginTransaction(inner, settings);
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
      rollbackToSavepoint: (connection, name, compile) => driver.rollbackToSavepoint!(innerOf(connection), name, compile),
    }),
    ...(driver.releaseSavepoint && {
      releaseSavepoint: (connection, name, compile) => driver.releaseSavepoint!(innerOf(connection), name, compile),
    }),
    releaseConnection: (connection, options) => driver.releaseConnection(innerOf(connection), options),
    destroy: (options) => driver.destroy(options),
  };
}

async function applyScope(connection: DatabaseConnection, state: ConnectionState, query?: CompiledQuery): Promise<void> {
  const setting = scopeSetting((query && fixedScopes.get(query.queryId)) ?? currentScope());
  const wanted: Settings = { role: setting.owner ? 'none' : SERVICE_ROLE, tenants: setting.tenants };
  const held = state.inTransaction ? state.local ?? state.session : state.session;
  if (held && held.role === wanted.role && held.tenants === wanted.tenants) return;
  const local = state.inTransaction;
  await connection.executeQuery(CompiledQuery.raw(
    `select set_config('role', $1, ${local}), set_config('${TENANTS_SETTING}', $2, ${local})`,
    [wanted.role, wanted.tenants],
  ));
  if (local) state.local = wanted;
  else state.session = wanted;
}

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
