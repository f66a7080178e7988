import type pg from 'pg';
import type { DatabaseTarget } from '../../config/database-url.js';
import { connectToTarget } from './host-pool.js';

/** Between two tries to connect the LISTEN connection. */
const RECONNECT_MS = 1000;
/** A host that does not answer at all is given up on after this long, for the next one. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A dedicated connection for LISTEN that reconnects if the server drops it, to the host the
 * target takes then (the new primary after a failover). It needs a session of its own: through a
 * transaction-pooling PgBouncer, LISTEN would register on a server connection that the next
 * client gets, so the listener is given DATABASE_LISTEN_URL's direct connection then.
 */
export async function listenPostgres(target: DatabaseTarget, channel: string, onNotify: () => void) {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    let next: pg.Client | undefined;
    try {
      next = (await connectToTarget(target, { connectionTimeoutMillis: CONNECT_TIMEOUT_MS })).client;
      next.on('notification', onNotify);
      next.on('error', () => scheduleReconnect());
      next.on('end', () => scheduleReconnect());
      await next.query(`LISTEN "${channel.replaceAll('"', '')}"`);
      if (stopped) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      onNotify(); // anything sent while disconnected is picked up by the caller's poll
    } catch {
      await next?.end().catch(() => {});
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
