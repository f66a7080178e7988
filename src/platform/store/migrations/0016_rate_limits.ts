import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a released migration; add a new one.
//
// The API's requests per credential and window (docs/conventions.md, "Rate limit"), counted here so
// that every replica on this database counts against one limit. A row is a credential's window: each
// request adds to `hits` in place. Unlogged: a count lives a minute or two and needs no durability;
// after a crash the windows start again from zero, which only forgives one window. Rows of ended
// windows are deleted by the service as it counts; the index on `window_start` makes that a range
// scan. A low fillfactor leaves room on each page for the updates of its rows (HOT: `hits` is in no
// index).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unlogged table rate_limit_windows (
    key text not null,
    window_start timestamptz not null,
    hits integer not null,
    constraint rate_limit_windows_pk primary key (key, window_start)
  ) with (fillfactor = 50)`.execute(db);
  await sql`create index rate_limit_windows_start_idx on rate_limit_windows (window_start)`.execute(db);
}
