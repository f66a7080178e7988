import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/platform/store/migrations/index.js';
import { createIndexConcurrently } from '../../src/platform/store/migrations/online.js';
import { type Finding, lockFindings } from './migration-sql.js';

/** Migrations of published releases (v0.7.0 and before): they run as they are; CHANGELOG.md gives what each one costs. */
const RELEASED = new Set(Object.keys(migrations).filter((name) => name < '0013'));

/**
 * Findings accepted in migrations not yet released, each with why it holds no writer for long
 * (figures: CHANGELOG.md, 0.8.0).
 */
const ACCEPTED: Array<Finding & { why: string }> = [
  { migration: '0014_count_generations', rule: 'backfill-in-migration-transaction', statement: 'select alert_counts_rebuild(null)',
    why: 'recounts the alerts in a transaction of its own once their triggers changed, in one snapshot: it holds no lock a writer waits on' },
  { migration: '0014_count_generations', rule: 'ban-drop-table', statement: 'drop table alert_counts, alert_count_deltas',
    why: 'the counts of 0.7, written by its triggers alone, replaced in the same short transaction; 0.7 cannot run on 0.8 anyway (row-level security)' },
  { migration: '0025_interaction_count_levels', rule: 'backfill-in-migration-transaction',
    statement: 'insert into interaction_count_levels (tenant_id, granularity, bucket, generation, level, classification_type, platform_id, source, direction,',
    why: 'sums interaction_counts (the aggregates, never the interactions) under the compaction lock: folds wait, ingest never does' },
  { migration: '0029_usage_rollup_slot_blocks', rule: 'constraint-missing-not-valid',
    statement: 'alter table usage_rollup_slots add constraint usage_rollup_slots_minutes_check',
    why: 'checks a table of roll-ups (tens of thousands of rows) that only the roll-up job writes: milliseconds, and ingest never touches it' },
  { migration: '0030_sealing_pass_on_new_stores', rule: 'backfill-in-migration-transaction',
    statement: 'insert into background_passes (name, position, completed_at, updated_at)',
    why: 'four rows of background_passes, on a store with no tenant yet: no writer waits, and only the sealing pass reads them' },
];

describe('what migrations lock', () => {
  it('finds nothing in a migration not yet released that would hold writers, except what is accepted with a reason', async () => {
    const findings = (await lockFindings(migrations)).filter((finding) => !RELEASED.has(finding.migration));
    const key = (finding: Finding) => `${finding.migration} ${finding.rule}: ${finding.statement}`;
    expect(findings.map(key).sort()).toEqual(ACCEPTED.map(key).sort());
  });

  it('fails a migration that builds an index in its transaction, rewrites a table or backfills it at once', async () => {
    const blocking = {
      '0099_blocking': {
        up: async (db: any) => {
          await sql`create index interactions_user_idx on interactions (tenant_id, user_id)`.execute(db);
          await sql`alter table interactions add column trace_id uuid not null default gen_random_uuid()`.execute(db);
          await sql`update interactions set risk_score = 0 where risk_score is null`.execute(db);
          await sql`alter table interactions add constraint interactions_score check (risk_score >= 0)`.execute(db);
        },
      },
    };
    const rules = (await lockFindings(blocking)).map((finding) => finding.rule);
    expect(rules).toEqual(expect.arrayContaining([
      'require-concurrent-index-creation', 'volatile-default-rewrites-table', 'backfill-in-migration-transaction',
      'constraint-missing-not-valid',
    ]));
  });

  it('counts a transaction id as a volatile default: each row gets its own, so the table is rewritten', async () => {
    const positioned = {
      '0099_position': {
        up: async (db: any) => {
          await sql`alter table interaction_count_deltas add column seen_at_xact xid8 not null default pg_current_xact_id()`.execute(db);
        },
      },
    };
    expect((await lockFindings(positioned)).map((finding) => finding.rule)).toContain('volatile-default-rewrites-table');
  });

  it('passes the same changes written online: concurrently and safe to run again outside a transaction, a constraint validated later', async () => {
    const online = {
      '0099_online': {
        transactional: false,
        up: async (db: any) => {
          await createIndexConcurrently(db, 'interactions_user_idx', sql`on interactions (tenant_id, user_id)`);
          await sql`alter table interactions add column if not exists trace_kind text default 'none'`.execute(db);
        },
      },
      '0100_check': {
        up: async (db: any) => {
          await sql`alter table interactions add constraint interactions_score check (risk_score >= 0) not valid`.execute(db);
        },
      },
      '0101_validate': {
        up: async (db: any) => { await sql`alter table interactions validate constraint interactions_score`.execute(db); },
      },
    };
    expect(await lockFindings(online)).toEqual([]);
  });
});
