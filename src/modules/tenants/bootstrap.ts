import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../../config/config.js';
import type { Store } from '../../platform/store/store.js';
import { createTenant, countTenants } from './tenants.service.js';
import { LOCK_IDS } from '../../kernel/lock-ids.js';

export interface BootstrapResult {
  tenantId: string;
  email: string;
  /** Set only when the password was generated, so it can be printed once. */
  generatedPassword?: string;
}

/**
 * On an empty store, creates the first tenant and admin. The PostgreSQL advisory lock keeps two
 * replicas starting together from both doing it.
 */
export async function bootstrapIfEmpty(store: Store, config: Config, now: Date): Promise<BootstrapResult | null> {
  return store.db.connection().execute(async (conn) => {
    if (store.kind === 'postgres') await sql`select pg_advisory_lock(${LOCK_IDS.bootstrap})`.execute(conn);
    try {
      if ((await countTenants(conn)) > 0) return null;
      const email = config.bootstrap.adminEmail ?? 'admin@example.com';
      const generatedPassword = config.bootstrap.adminPassword ? undefined : generatePassword();
      const password = config.bootstrap.adminPassword ?? generatedPassword!;
      const { tenantId } = await createTenant(conn, { name: config.bootstrap.tenantName, adminEmail: email, adminPassword: password }, now);
      return { tenantId, email, ...(generatedPassword ? { generatedPassword } : {}) };
    } finally {
      if (store.kind === 'postgres') await sql`select pg_advisory_unlock(${LOCK_IDS.bootstrap})`.execute(conn);
    }
  });
}

/** 24 characters that always meet the complexity rule. */
function generatePassword(): string {
  const body = randomBytes(18).toString('base64url');
  return `Aa1${body}`.slice(0, 24);
}
