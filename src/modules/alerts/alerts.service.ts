import type { Insertable } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { AppError, notFound } from '../../kernel/errors.js';
import { isUuid, uuidv7 } from '../../kernel/ids.js';
import type { PageRequest } from '../../kernel/paging/pagination.js';
import { writeAudit } from '../audit/audit.writer.js';
import type { EmitInput } from '../../platform/outbox/outbox.js';
import { emit } from '../../platform/outbox/outbox.js';
import { parseDateRange } from '../../kernel/dates.js';
import type { AlertsTable, PolicyDecision } from '../../kernel/tables/interactions.js';
import type { PolicyRule } from '../policies/policies.evaluate.js';
import { type AlertRow, findAlert, listAlertRows, resolveOpenAlert } from './alerts.repo.js';
import type { AlertListFilters, AlertResponse } from './alerts.schemas.js';

/** The alerts an interaction raises: one per block or coach decision, with its policy's severity. */
export function alertsFor(
  tenantId: string, interactionId: string, decisions: readonly PolicyDecision[],
  policies: readonly PolicyRule[], now: Date,
): Insertable<AlertsTable>[] {
  return decisions
    .filter((decision) => decision.action !== 'log')
    .map((decision) => ({
      tenant_id: tenantId,
      id: uuidv7(now.getTime()),
      interaction_id: interactionId,
      policy_id: decision.policy_id,
      policy_name: decision.policy_name,
      severity: policies.find((policy) => policy.id === decision.policy_id)!.severity,
      status: 'open' as const,
      created_at: now,
      resolved_at: null,
      resolved_by: null,
    }));
}

/** alert.created, and alert.severity_high / alert.severity_critical for those severities. */
export function alertEvents(alert: AlertResponse): EmitInput[] {
  const events: EmitInput[] = [{ eventType: 'alert.created', data: alert }];
  if (alert.severity === 'high') events.push({ eventType: 'alert.severity_high', data: alert });
  if (alert.severity === 'critical') events.push({ eventType: 'alert.severity_critical', data: alert });
  return events;
}

export async function listAlerts(deps: Deps, ctx: RequestContext, filters: AlertListFilters, request: PageRequest) {
  const { rows, page, total } = await listAlertRows(await deps.store.reader(), ctx.tenantId, filters, parseDateRange(filters), request);
  return { body: { alerts: rows.map(toAlertResponse), total, next_cursor: page.nextCursor }, page };
}

export async function getAlert(deps: Deps, ctx: RequestContext, alertId: string): Promise<AlertResponse> {
  const row = isUuid(alertId) ? await findAlert(deps.store.db, ctx.tenantId, alertId) : undefined;
  if (!row) throw notFound('Alert');
  return toAlertResponse(row);
}

/** Open -> resolved, once: resolving a resolved alert is 409 invalid_state. */
export async function resolveAlert(deps: Deps, ctx: RequestContext, alertId: string): Promise<AlertResponse> {
  if (!isUuid(alertId)) throw notFound('Alert');
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const row = await resolveOpenAlert(tx, ctx.tenantId, alertId, ctx.actor.id, now);
    if (!row) {
      if (await findAlert(tx, ctx.tenantId, alertId)) throw new AppError('invalid_state', 'The alert is already resolved');
      throw notFound('Alert');
    }
    const alert = toAlertResponse(row);
    await writeAudit(tx, ctx, {
      action: 'alert.resolved', targetType: 'alert', targetId: alert.id,
      details: { policy_id: alert.policy_id, interaction_id: alert.interaction_id, severity: alert.severity },
    }, now);
    await emit(tx, ctx.tenantId, 'alert.resolved', alert, now);
    return alert;
  });
}

export function toAlertResponse(row: Insertable<AlertsTable> | AlertRow): AlertResponse {
  return {
    id: row.id,
    interaction_id: row.interaction_id,
    policy_id: row.policy_id,
    policy_name: row.policy_name,
    severity: row.severity,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    resolved_at: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
    resolved_by: row.resolved_by ?? null,
  };
}
