import { StoreUnavailableError } from './store.js';

// Connection failures of node-postgres and server shutdown codes (57P01-57P03).
const STORE_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03']);
const STORE_DOWN_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|PGlite is closed|driver has already been destroyed|instance is already closed/i;

/** True when `error` says the store cannot be reached or is going away, not that a query was wrong. */
export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && STORE_DOWN_CODES.has(code)) || STORE_DOWN_MESSAGES.test(error.message);
}
