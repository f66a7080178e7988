import { randomBytes } from 'node:crypto';
import type { Config } from '../../config/config.js';
import type { Store } from '../../platform/store/store.js';
import { createTenant, countTenants } from './tenants.service.js';
import { LEASES } from '../../kernel/lock-ids.js';
import { withLease } from '../../platform/store/leases.js';

export interface BootstrapResult {
  tenantId: string;
  email: string;
  /** Set only when the password was generated, so it can be printed once. */
  generatedPassword?: string;
}

/**
 * On an empty store, creates the first tenant and admin. The lease keeps two replicas starting
 * together from both doing it: the second waits for the first, then finds a tenant.
 */
export async function bootstrapIfEmpty(store: Store, config: Config, now: Date): Promise<BootstrapResult | null> {
  return withLease(store.db, LEASES.bootstrap, async () => {
    if ((await countTenants(store.db)) > 0) return null;
    const email = config.bootstrap.adminEmail ?? 'admin@example.com';
    const generatedPassword = config.bootstrap.adminPassword ? undefined : generatePassword();
    const password = config.bootstrap.adminPassword ?? generatedPassword!;
    const { tenantId } = await createTenant(store.db, { name: config.bootstrap.tenantName, adminEmail: email, adminPassword: password }, now);
    return { tenantId, email, ...(generatedPassword ? { generatedPassword } : {}) };
  }, { wait: true });
}

/** 24 characters that always meet the complexity rule. */
function generatePassword(): string {
  const body = randomBytes(18).toString('base64url');
  return `Aa1${body}`.slice(0, 24);
}
