import pg from 'pg';

/** Between two tries to connect the LISTEN connection. */
const RECONNECT_MS = 1000;

/**
 * A dedicated connection for LISTEN that reconnects if the server drops it. It needs a session of
 * its own: through a transaction-pooling PgBouncer, LISTEN would register on a server connection
 * that the next client gets, so the listener is given DATABASE_LISTEN_URL's direct connection then.
 */
export async function listenPostgres(connectionString: string, channel: string, onNotify: () => void) {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString });
    next.on('notification', onNotify);
    next.on('error', () => scheduleReconnect());
    try {
      await next.connect();
      await next.query(`LISTEN "${channel.replaceAll('"', '')}"`);
      client = next;
      onNotify(); // anything sent while disconnected is picked up by the caller's poll
    } catch {
      await next.end().catch(() => {});
      scheduleReconnect();
    }
  };
  const scheduleReconnect = () => {
    if (stopped || retry) return;
    client?.end().catch(() => {});
    client = undefined;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
