import { StoreUnavailableError } from './store-contract.js';

// Connection failures of node-postgres, server shutdown (57P01-57P03), too many connections (53300),
// a write that reached a standby (25006: a primary demoted under an open connection).
const STORE_DOWN_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  '57P01', '57P02', '57P03', '53300', '25006',
]);
// node-postgres and pg-pool say most of these in words only. "not queryable" is what a ROLLBACK on a
// client whose connection just broke throws, replacing the error of the query that broke it.
const STORE_DOWN_MESSAGES = new RegExp([
  'Connection terminated', 'timeout exceeded when trying to connect', 'is not queryable',
  'Cannot use a pool after calling end', 'PGlite is closed', 'driver has already been destroyed',
  'instance is already closed',
].join('|'), 'i');

/** True when `error` says the store cannot be reached or is going away, not that a query was wrong. */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (STORE_DOWN_CODES.has(code) || code.startsWith('08'))) return true;
  if (STORE_DOWN_MESSAGES.test(error.message)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isStoreUnavailable(inner, depth + 1))) return true;
  return error.cause !== undefined && isStoreUnavailable(error.cause, depth + 1);
}
