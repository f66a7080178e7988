import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { AppError } from '../../kernel/errors.js';
import { uuidv7 } from '../../kernel/ids.js';
import { hashPassword, isStrongPassword, PASSWORD_RULE } from '../../kernel/passwords.js';
import { writeAudit } from '../audit/audit.writer.js';
import { systemContext } from '../../kernel/context.js';
import { inFixedScope } from '../../platform/store/scoped-connections.js';
import { ALL_TENANTS, onlyTenants } from '../../platform/store/tenant-scope.js';

export interface NewTenant {
  name: string;
  adminEmail: string;
  adminPassword: string;
}

export interface CreatedTenant {
  tenantId: string;
  adminId: string;
}

/** Creates a tenant and its first, active admin in one transaction. */
export async function createTenant(db: Kysely<Database>, input: NewTenant, now: Date): Promise<CreatedTenant> {
  if (!input.name.trim()) throw new AppError('validation_error', 'The tenant name must not be empty');
  if (!/^[^\s@]+@[^\s@]+$/.test(input.adminEmail)) {
    throw new AppError('validation_error', `Not an email address: ${input.adminEmail}`);
  }
  if (!isStrongPassword(input.adminPassword)) {
    throw new AppError('validation_error', `The admin password must have ${PASSWORD_RULE}`);
  }
  const passwordHash = await hashPassword(input.adminPassword);
  const tenantId = uuidv7(now.getTime());
  const adminId = uuidv7(now.getTime());
  await inFixedScope(db, onlyTenants([tenantId])).transaction().execute(async (tx) => {
    await tx.insertInto('tenants').values({ id: tenantId, name: input.name.trim(), created_at: now, updated_at: now }).execute();
    await tx
      .insertInto('users')
      .values({
        tenant_id: tenantId,
        id: adminId,
        email: input.adminEmail,
        display_name: null,
        role: 'admin',
        status: 'active',
        password_hash: passwordHash,
        invited_by: null,
        invitation_expires_at: null,
        created_at: now,
        updated_at: now,
        last_login: null,
      })
      .execute();
    await writeAudit(tx, systemContext(tenantId), {
      action: 'tenant.created',
      targetType: 'tenant',
      targetId: tenantId,
      details: { name: input.name.trim(), admin_email: input.adminEmail },
    }, now);
  });
  return { tenantId, adminId };
}

export async function countTenants(db: Kysely<Database>): Promise<number> {
  const row = await inFixedScope(db, ALL_TENANTS).selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
