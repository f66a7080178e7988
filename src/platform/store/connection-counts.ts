import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/** Connections of a store: open, idle, and queries waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * The embedded store has one connection that Kysely hands out one caller at a time: wraps the
 * dialect's driver to count who holds it and who waits for it (the PostgreSQL pool counts its own).
 */
export function countingConnections(dialect: Dialect): { dialect: Dialect; stats: () => PoolStats } {
  let inUse = 0;
  let waiting = 0;
  const wrap = (driver: Driver): Driver => {
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async (options): Promise<DatabaseConnection> => {
      waiting += 1;
      try {
        const connection = await acquire(options);
        inUse += 1;
        return connection;
      } finally {
        waiting -= 1;
      }
    };
    driver.releaseConnection = async (connection, options) => {
      inUse -= 1;
      await release(connection, options);
    };
    return driver;
  };
  return {
    dialect: {
      createDriver: () => wrap(dialect.createDriver()),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    },
    stats: () => ({ total: 1, idle: inUse > 0 ? 0 : 1, waiting }),
  };
}
