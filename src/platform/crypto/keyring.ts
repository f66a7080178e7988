import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { TenantKeysTable } from '../../kernel/tables/protection.js';
import { AppError } from '../../kernel/errors.js';
import { createTenantKeys, type TenantKeys, unwrapTenantKeys, wrapTenantKeys, type WrappedTenantKeys } from './envelope.js';
import type { MasterKey } from './master-key.js';
import { inTenants } from '../store/tenant-scope.js';

export type TenantKeysRow = Selectable<TenantKeysTable>;

/**
 * The tenants' keys this process uses, opened with its master key and kept in memory: a tenant's
 * keys never change (a rotation of the master key only wraps them again), so an opened key is
 * good for the life of the process. A tenant without keys gets them at first use, made once
 * whatever the number of processes asking at the same time.
 */
export class TenantKeyring {
  private readonly opened = new Map<string, TenantKeys>();

  constructor(private readonly db: Kysely<Database>, readonly master: MasterKey) {}

  async forTenant(tenantId: string): Promise<TenantKeys> {
    return this.opened.get(tenantId) ?? (await this.forTenants([tenantId])).get(tenantId)!;
  }

  /** The keys of every tenant named, in one read for those not opened yet. */
  async forTenants(tenantIds: readonly string[]): Promise<ReadonlyMap<string, TenantKeys>> {
    const missing = [...new Set(tenantIds)].filter((id) => !this.opened.has(id));
    if (missing.length > 0) {
      const rows = await inTenants(missing, async () => {
        const found = await this.read(missing);
        if (found.length === missing.length) return found;
        await this.create(missing.filter((id) => !found.some((row) => row.tenant_id === id)));
        return this.read(missing);
      });
      for (const row of rows) this.opened.set(row.tenant_id, this.open(row));
    }
    return new Map(tenantIds.map((id) => [id, this.opened.get(id)!]));
  }

  private read(tenantIds: readonly string[]): Promise<TenantKeysRow[]> {
    return this.db.selectFrom('tenant_keys').selectAll().where('tenant_id', 'in', tenantIds).execute();
  }

  /** Under the tenants' row locks, so that two processes cannot give one tenant two sets of keys. */
  private async create(tenantIds: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const tenants = await tx.selectFrom('tenants').select('id').where('id', 'in', [...tenantIds].sort())
        .orderBy('id').forUpdate().execute();
      const now = new Date();
      const rows = tenants.map(({ id }) => ({ tenant_id: id, ...wrappedColumns(wrapTenantKeys(createTenantKeys(id), this.master)), created_at: now, updated_at: now }));
      if (rows.length > 0) await tx.insertInto('tenant_keys').values(rows).onConflict((oc) => oc.column('tenant_id').doNothing()).execute();
    });
  }

  /** Opens whichever wrapping this process's master key made: the current one, or the previous one mid-rotation. */
  private open(row: TenantKeysRow): TenantKeys {
    const wrapped = wrappingUnder(row, this.master.id);
    if (!wrapped) {
      throw new AppError('unavailable', 'The data encryption key of this process cannot open this tenant\'s keys', {
        retryAfterSeconds: 60,
      });
    }
    return unwrapTenantKeys(row.tenant_id, wrapped, this.master);
  }
}

/** The row's wrapping made under master key `masterKeyId`, if it holds one. */
export function wrappingUnder(row: TenantKeysRow, masterKeyId: string): WrappedTenantKeys | undefined {
  if (row.master_key_id === masterKeyId) {
    return { masterKeyId, dataKey: row.data_key, fingerprintKey: row.fingerprint_key };
  }
  if (row.previous_master_key_id === masterKeyId && row.previous_data_key && row.previous_fingerprint_key) {
    return { masterKeyId, dataKey: row.previous_data_key, fingerprintKey: row.previous_fingerprint_key };
  }
  return undefined;
}

export function wrappedColumns(wrapped: WrappedTenantKeys) {
  return { master_key_id: wrapped.masterKeyId, data_key: wrapped.dataKey, fingerprint_key: wrapped.fingerprintKey };
}
