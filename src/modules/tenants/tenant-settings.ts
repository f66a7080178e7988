import type { Updateable } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { TenantsTable } from '../../kernel/tables/database.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { writeAudit } from '../audit/audit.writer.js';

export interface TenantSettings {
  id: string;
  name: string;
  retention_days: number | null;
  audit_retention_days: number | null;
  validate_signals: boolean;
  signal_values: 'keep' | 'mask';
  created_at: string;
  updated_at: string;
}

export interface TenantSettingsInput {
  name?: string;
  retention_days?: number | null;
  audit_retention_days?: number | null;
  validate_signals?: boolean;
  signal_values?: 'keep' | 'mask';
}

const SETTINGS = ['name', 'retention_days', 'audit_retention_days', 'validate_signals', 'signal_values'] as const;

export async function getTenantSettings(deps: Deps, ctx: RequestContext): Promise<TenantSettings> {
  const tenant = await deps.store.db.selectFrom('tenants').selectAll().where('id', '=', ctx.tenantId).executeTakeFirstOrThrow();
  return toSettings(tenant);
}

/**
 * Changes the given settings (the others keep their value) and audits each change with its old
 * and new value. Every replica reads settings from the store where it uses them, so a change
 * applies from the next request on.
 */
export async function updateTenantSettings(deps: Deps, ctx: RequestContext, input: TenantSettingsInput): Promise<TenantSettings> {
  if (input.name !== undefined && !input.name.trim()) {
    throw new AppError('validation_error', 'The tenant name must not be empty', { details: [{ path: 'body.name', message: 'must not be blank' }] });
  }
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const current = await tx.selectFrom('tenants').selectAll().where('id', '=', ctx.tenantId).forUpdate().executeTakeFirstOrThrow();
    const wanted = { ...input, ...(input.name !== undefined ? { name: input.name.trim() } : {}) };
    const changes: Updateable<TenantsTable> = {};
    const audited: Record<string, { from: unknown; to: unknown }> = {};
    for (const setting of SETTINGS) {
      const value = wanted[setting];
      if (value === undefined || value === current[setting]) continue;
      Object.assign(changes, { [setting]: value });
      audited[setting] = { from: current[setting], to: value };
    }
    if (Object.keys(changes).length === 0) return toSettings(current);
    const updated = await tx.updateTable('tenants').set({ ...changes, updated_at: now }).where('id', '=', ctx.tenantId)
      .returningAll().executeTakeFirstOrThrow();
    await writeAudit(tx, ctx, { action: 'tenant.updated', targetType: 'tenant', targetId: ctx.tenantId, details: audited }, now);
    return toSettings(updated);
  });
}

function toSettings(tenant: {
  id: string; name: string; retention_days: number | null; audit_retention_days: number | null;
  validate_signals: boolean; signal_values: 'keep' | 'mask'; created_at: Date; updated_at: Date;
}): TenantSettings {
  return {
    id: tenant.id,
    name: tenant.name,
    retention_days: tenant.retention_days,
    audit_retention_days: tenant.audit_retention_days,
    validate_signals: tenant.validate_signals,
    signal_values: tenant.signal_values,
    created_at: tenant.created_at.toISOString(),
    updated_at: tenant.updated_at.toISOString(),
  };
}
