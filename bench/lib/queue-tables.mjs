// Size and content of the delivery-queue tables, whichever of them the schema has (the delivery
// engine being rewritten drops outbox_events and adds webhook_messages). `query(text, params)` returns rows.
const TABLES = ['outbox_events', 'webhook_jobs', 'webhook_messages'];

/**
 * `{ bytes, queued, tables: [{ table, bytes, rows, queued }] }`. Queued: the outbox's undispatched rows and
 * every webhook_jobs row (the new engine keeps only unfinished jobs there); webhook_messages holds envelopes
 * kept for the history and redelivery, so its rows count in the size but are not queued work.
 */
export async function queueTables(query) {
  const tables = [];
  for (const table of TABLES) {
    const [{ bytes }] = await query('select pg_total_relation_size(to_regclass($1))::bigint as bytes', [table]);
    if (bytes === null) continue;
    const [{ rows }] = await query(`select count(*)::bigint as rows from ${table}`);
    let queued = table === 'webhook_messages' ? 0 : Number(rows);
    if (table === 'outbox_events' && (await hasColumn(query, table, 'dispatched_at'))) {
      queued = Number((await query(`select count(*)::bigint as n from ${table} where dispatched_at is null`))[0].n);
    }
    tables.push({ table, bytes: Number(bytes), rows: Number(rows), queued });
  }
  return {
    bytes: tables.reduce((sum, t) => sum + t.bytes, 0),
    queued: tables.reduce((sum, t) => sum + t.queued, 0),
    tables,
  };
}

async function hasColumn(query, table, column) {
  const rows = await query(
    'select 1 from information_schema.columns where table_schema = current_schema() and table_name = $1 and column_name = $2',
    [table, column],
  );
  return rows.length > 0;
}
