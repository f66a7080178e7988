import type { Timestamp } from './columns.js';

/** One credential's requests in one window of the API's rate limit (PostgreSQL only; unlogged). */
export interface RateLimitWindowsTable {
  /** The credential: `user:<id>` or `api_key:<id>`. */
  key: string;
  window_start: Timestamp;
  hits: number;
}

/** Table types of the rate limit; merged into `Database`. */
export interface RateLimitTables {
  rate_limit_windows: RateLimitWindowsTable;
}
