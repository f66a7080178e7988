import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import type { Deps } from '../../deps.js';
import { uuidv7 } from '../../lib/ids.js';
import { insertAlerts } from '../alerts/alerts.repo.js';
import { alertEvents, alertsFor, toAlertResponse } from '../alerts/alerts.service.js';
import { type EmitInput, emitMany } from '../events/outbox.js';
import { policyCacheFor } from '../policies/policies.cache.js';
import { evaluate } from '../policies/policies.evaluate.js';
import { toInteractionEventData } from './interactions.mapper.js';
import { insertClassificationTypes, insertInteractions } from './interactions.repo.js';
import type { InteractionResponse } from './interactions.schemas.js';
import type { AlertsTable } from './interactions.tables.js';
import type { ValidInteraction } from './interactions.validation.js';

export const HIGH_RISK_THRESHOLD = 0.8;
// 5 parameters per event: stays under PostgreSQL's 65,535 parameters per statement.
const EVENTS_PER_INSERT = 10_000;

/**
 * Stores validated interactions inside the caller's transaction, the same way for a single
 * create and a batch: each is judged by the tenant's enabled policies, block and coach
 * decisions raise alerts, and the events are written to the outbox. One insert per table.
 */
export async function ingest(
  deps: Deps, tx: Transaction<Database>, tenantId: string, inputs: readonly ValidInteraction[], now: Date,
): Promise<InteractionResponse[]> {
  if (inputs.length === 0) return [];
  const policies = await policyCacheFor(deps).enabledPolicies(tx, tenantId);
  const interactions: InteractionResponse[] = [];
  const alerts: Insertable<AlertsTable>[] = [];
  const events: EmitInput[] = [];
  for (const input of inputs) {
    const interaction: InteractionResponse = {
      id: uuidv7(now.getTime()),
      tenant_id: tenantId,
      timestamp: now.toISOString(),
      ...input,
      policy_decisions: evaluate(policies, input),
    };
    interactions.push(interaction);
    const data = toInteractionEventData(interaction);
    events.push({ eventType: 'interaction.created', data });
    if (interaction.policy_decisions.length > 0) events.push({ eventType: 'interaction.policy_violated', data });
    if (interaction.risk_score >= HIGH_RISK_THRESHOLD) events.push({ eventType: 'interaction.high_risk', data });
    for (const alert of alertsFor(tenantId, interaction.id, interaction.policy_decisions, policies, now)) {
      alerts.push(alert);
      events.push(...alertEvents(toAlertResponse(alert)));
    }
  }
  await insertInteractions(tx, interactions);
  await insertClassificationTypes(tx, tenantId, interactions, now);
  if (alerts.length > 0) await insertAlerts(tx, alerts);
  for (let i = 0; i < events.length; i += EVENTS_PER_INSERT) {
    await emitMany(tx, tenantId, events.slice(i, i + EVENTS_PER_INSERT), now);
  }
  return interactions;
}
