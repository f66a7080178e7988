import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { StartupError } from '../../kernel/startup-error.js';
import { rewrapTenantKeys } from './envelope.js';
import { type TenantKeysRow, wrappedColumns, wrappingUnder } from './keyring.js';
import type { MasterKey } from './master-key.js';
import { inFixedScope } from '../store/scoped-connections.js';
import { ALL_TENANTS } from '../store/tenant-scope.js';

// A rotation of the master key wraps each tenant's keys again; the values and fingerprints they
// protect do not change. It runs in two steps so that every process keeps working meanwhile:
// `rotate` wraps each tenant's keys under the new master key and keeps the wrapping under the
// current one beside it (processes still started with the current key open that one); once every
// process runs with the new key, `retire` deletes the old wrappings, and the old key opens nothing.

const BATCH = 100;

/** A rotation or a retirement that cannot go on: one line saying what to do. */
export class KeyRotationError extends StartupError {}

export interface RotationResult {
  /** Tenants whose keys were wrapped under the new master key by this run. */
  rewrapped: number;
  /** Tenants whose keys already were (an earlier run, or created since under the new key). */
  alreadyRotated: number;
}

/** Wraps every tenant's keys under `next`, in batches of 100 tenants, each batch one transaction. */
export async function rotateMasterKey(anyScope: Kysely<Database>, current: MasterKey, next: MasterKey): Promise<RotationResult> {
  const db = inFixedScope(anyScope, ALL_TENANTS);
  if (current.id === next.id) throw new KeyRotationError('the new key is the current key: generate another (openssl rand -base64 32)');
  const result: RotationResult = { rewrapped: 0, alreadyRotated: 0 };
  for await (const rows of batchesOf(db)) {
    await db.transaction().execute(async (tx) => {
      for (const row of rows) {
        if (row.master_key_id === next.id) {
          result.alreadyRotated += 1;
          continue;
        }
        const wrapped = wrappingUnder(row, current.id);
        if (!wrapped) {
          throw new KeyRotationError(`the keys of tenant ${row.tenant_id} are wrapped under master key ${row.master_key_id}, `
            + `not under the current key ${current.id}: run this command with that key as DATA_ENCRYPTION_KEY`);
        }
        const rewrapped = rewrapTenantKeys(row.tenant_id, wrapped, current, next);
        const updated = await tx.updateTable('tenant_keys')
          .set({
            ...wrappedColumns(rewrapped),
            previous_master_key_id: current.id, previous_data_key: wrapped.dataKey, previous_fingerprint_key: wrapped.fingerprintKey,
            updated_at: new Date(),
          })
          .where('tenant_id', '=', row.tenant_id).where('master_key_id', '=', row.master_key_id)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) throw new KeyRotationError(`the keys of tenant ${row.tenant_id} changed meanwhile: run the command again`);
        result.rewrapped += 1;
      }
    });
  }
  return result;
}

/**
 * Deletes every wrapping not made under `current`: afterwards only `current` opens the tenants'
 * keys. Refused while a tenant's keys are not wrapped under it (nothing is deleted then).
 */
export async function retirePreviousKeys(anyScope: Kysely<Database>, current: MasterKey): Promise<{ retired: number }> {
  const db = inFixedScope(anyScope, ALL_TENANTS);
  const behind = await db.selectFrom('tenant_keys').select((eb) => eb.fn.countAll<string>().as('n'))
    .where('master_key_id', '!=', current.id).executeTakeFirstOrThrow();
  if (Number(behind.n) > 0) {
    throw new KeyRotationError(`the keys of ${behind.n} tenant(s) are not wrapped under the current key ${current.id}: `
      + 'run `ugs keys rotate --new-key <this key>` with the previous key as DATA_ENCRYPTION_KEY first');
  }
  const retired = await db.updateTable('tenant_keys')
    .set({ previous_master_key_id: null, previous_data_key: null, previous_fingerprint_key: null, updated_at: new Date() })
    .where('master_key_id', '=', current.id).where('previous_master_key_id', 'is not', null)
    .executeTakeFirst();
  return { retired: Number(retired.numUpdatedRows) };
}

async function* batchesOf(db: Kysely<Database>): AsyncGenerator<TenantKeysRow[]> {
  let after: string | undefined;
  for (;;) {
    let query = db.selectFrom('tenant_keys').selectAll().orderBy('tenant_id').limit(BATCH);
    if (after !== undefined) query = query.where('tenant_id', '>', after);
    const rows = await query.execute();
    if (rows.length === 0) return;
    yield rows;
    after = rows.at(-1)!.tenant_id;
  }
}
