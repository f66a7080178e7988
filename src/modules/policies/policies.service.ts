import type { Transaction, Updateable } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { type ErrorDetail, AppError, notFound } from '../../kernel/errors.js';
import { isUuid, uuidv7 } from '../../kernel/ids.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { writeAudit } from '../audit/audit.writer.js';
import type { EmitInput } from '../../platform/outbox/outbox.js';
import { emitMany } from '../../platform/outbox/outbox.js';
import { canonicalJson } from '../../kernel/canonical-json.js';
import { PLATFORM_ID_PATTERN } from '../../kernel/vocabulary.js';
import type { PoliciesTable, PolicyConditions } from '../../kernel/tables/interactions.js';
import {
  type PolicyRow, deletePolicyRow, findPolicy, findPolicyForUpdate, insertPolicy, listPolicyRows,
  updatePolicyRow,
} from './policies.repo.js';
import type {
  ConditionsInput, CreatePolicyInput, PolicyListFilters, PolicyResponse, UpdatePolicyInput,
} from './policies.schemas.js';

export async function createPolicy(deps: Deps, ctx: RequestContext, input: CreatePolicyInput): Promise<PolicyResponse> {
  const conditions = normaliseConditions(input.conditions ?? {});
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const row = await insertPolicy(tx, {
      tenant_id: ctx.tenantId,
      id: uuidv7(now.getTime()),
      name: input.name,
      description: input.description ?? '',
      action: input.action,
      severity: input.severity ?? 'medium',
      enabled: input.enabled ?? true,
      conditions: JSON.stringify(conditions),
      message: input.message ?? null,
      created_at: now,
      updated_at: now,
    });
    const policy = toPolicyResponse(row);
    await recordChange(tx, ctx, now, 'policy.created', policy, { name: policy.name, action: policy.action });
    return policy;
  });
}

export async function listPolicies(deps: Deps, ctx: RequestContext, filters: PolicyListFilters, request: PageRequest) {
  const { rows, page, total } = await listPolicyRows(deps.store.db, ctx.tenantId, filters, request);
  return { body: { policies: rows.map(toPolicyResponse), total, next_cursor: page.nextCursor }, page };
}

export async function getPolicy(deps: Deps, ctx: RequestContext, policyId: string): Promise<PolicyResponse> {
  const row = isUuid(policyId) ? await findPolicy(deps.store.db, ctx.tenantId, policyId) : undefined;
  if (!row) throw notFound('Policy');
  return toPolicyResponse(row);
}

/** A partial update: fields left out keep their value; `conditions`, when given, replaces them all. */
export async function updatePolicy(
  deps: Deps, ctx: RequestContext, policyId: string, input: UpdatePolicyInput,
): Promise<PolicyResponse> {
  const conditions = input.conditions === undefined ? undefined : normaliseConditions(input.conditions);
  return changePolicy(deps, ctx, policyId, (current) => {
    const changes: Updateable<PoliciesTable> = {};
    const changed: string[] = [];
    for (const field of ['name', 'description', 'action', 'severity', 'enabled', 'message'] as const) {
      if (input[field] !== undefined && input[field] !== current[field]) {
        Object.assign(changes, { [field]: input[field] });
        changed.push(field);
      }
    }
    if (conditions && canonicalJson(conditions) !== canonicalJson(current.conditions)) {
      changes.conditions = JSON.stringify(conditions);
      changed.push('conditions');
    }
    return { changes, changed };
  });
}

/** Enabling an enabled policy (or disabling a disabled one) changes nothing and emits nothing. */
export async function setPolicyEnabled(
  deps: Deps, ctx: RequestContext, policyId: string, enabled: boolean,
): Promise<PolicyResponse> {
  return changePolicy(deps, ctx, policyId, (current) =>
    current.enabled === enabled ? { changes: {}, changed: [] } : { changes: { enabled }, changed: ['enabled'] });
}

export async function deletePolicy(deps: Deps, ctx: RequestContext, policyId: string): Promise<void> {
  if (!isUuid(policyId)) throw notFound('Policy');
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (tx) => {
    const row = await deletePolicyRow(tx, ctx.tenantId, policyId);
    if (!row) throw notFound('Policy');
    await writeAudit(tx, ctx, { action: 'policy.deleted', targetType: 'policy', targetId: row.id, details: { name: row.name } }, now);
    await emitMany(tx, ctx.tenantId, [{ eventType: 'policy.deleted', data: { id: row.id } }], now);
  });
}

type ChangePlan = { changes: Updateable<PoliciesTable>; changed: string[] };

async function changePolicy(
  deps: Deps, ctx: RequestContext, policyId: string, plan: (current: PolicyRow) => ChangePlan,
): Promise<PolicyResponse> {
  if (!isUuid(policyId)) throw notFound('Policy');
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const current = await findPolicyForUpdate(tx, ctx.tenantId, policyId);
    if (!current) throw notFound('Policy');
    const { changes, changed } = plan(current);
    if (changed.length === 0) return toPolicyResponse(current);
    const policy = toPolicyResponse(await updatePolicyRow(tx, ctx.tenantId, policyId, { ...changes, updated_at: now }));
    const toggled = changes.enabled === undefined ? undefined : changes.enabled ? 'policy.enabled' : 'policy.disabled';
    // Enabling or disabling alone is its own event; within a wider update it follows policy.updated.
    const primary = toggled && changed.length === 1 ? toggled : 'policy.updated';
    const extra: EmitInput[] = toggled && primary !== toggled ? [{ eventType: toggled, data: policy }] : [];
    await recordChange(tx, ctx, now, primary, policy, { name: policy.name, changed }, extra);
    return policy;
  });
}

/** The audit entry and events every policy change writes in its transaction (a trigger bumps the tenant's policies counter). */
async function recordChange(
  tx: Transaction<Database>, ctx: RequestContext, now: Date,
  action: 'policy.created' | 'policy.updated' | 'policy.enabled' | 'policy.disabled',
  policy: PolicyResponse, details: Record<string, unknown>, extraEvents: EmitInput[] = [],
): Promise<void> {
  await writeAudit(tx, ctx, { action, targetType: 'policy', targetId: policy.id, details }, now);
  await emitMany(tx, ctx.tenantId, [{ eventType: action, data: policy }, ...extraEvents], now);
}

/** Platform ids normalised like an interaction's, duplicates dropped; absent conditions omitted. */
export function normaliseConditions(input: ConditionsInput): PolicyConditions {
  const details: ErrorDetail[] = [];
  const conditions: PolicyConditions = {};
  if (input.platform_ids) {
    const platformIds = input.platform_ids.map((id) => id.trim().toLowerCase());
    platformIds.forEach((id, index) => {
      if (!PLATFORM_ID_PATTERN.test(id)) {
        details.push({ path: `body.conditions.platform_ids.${index}`, message: 'is not a valid platform id' });
      }
    });
    conditions.platform_ids = unique(platformIds);
  }
  if (input.classification_types) conditions.classification_types = unique(input.classification_types);
  if (input.min_risk_score !== undefined) conditions.min_risk_score = input.min_risk_score;
  if (input.directions) conditions.directions = unique(input.directions);
  if (input.sources) conditions.sources = unique(input.sources);
  if (input.interaction_types) conditions.interaction_types = unique(input.interaction_types);
  if (input.validated_only) conditions.validated_only = true;
  if (input.platform_statuses) conditions.platform_statuses = unique(input.platform_statuses);
  if (details.length > 0) {
    throw new AppError('validation_error', `Invalid request: ${details[0]!.path} ${details[0]!.message}`, { details });
  }
  return conditions;
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

export function toPolicyResponse(row: PolicyRow): PolicyResponse {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    action: row.action,
    severity: row.severity,
    enabled: row.enabled,
    conditions: row.conditions,
    message: row.message ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
