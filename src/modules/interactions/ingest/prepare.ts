import type { Insertable } from 'kysely';
import { uuidv7 } from '../../../kernel/ids.js';
import { alertEvents, alertsFor, toAlertResponse } from '../../alerts/alerts.service.js';
import { type EventEnvelope, toEnvelope } from '../../../platform/outbox/outbox.js';
import { evaluate } from '../../policies/policies.evaluate.js';
import type { TenantRules } from '../../policies/policies.cache.js';
import { validateSignal } from '../../signals/signal-validation.js';
import { toInteractionEventData } from '../interactions.mapper.js';
import type { InteractionResponse } from '../interactions.schemas.js';
import type { AlertsTable, PolicyDecision } from '../../../kernel/tables/interactions.js';
import { DEFAULT_PLATFORM_STATUS } from '../../../kernel/vocabulary.js';
import type { ValidInteraction } from '../interactions.validation.js';
import type { TenantKeys } from '../../../platform/crypto/envelope.js';
import { protectClassification, type SignalValuesMode, type StoredInteraction } from '../detected-values.js';

export const HIGH_RISK_THRESHOLD = 0.8;

/** How a tenant's detected values are kept: its keys and its `signal_values` setting. */
export interface ValueProtection {
  keys: TenantKeys;
  mode: SignalValuesMode;
}

/** Each classification with `validated`: whether its value passed its type's check (false when there is none). */
function withValidatedSignals(input: ValidInteraction): ValidInteraction {
  if (input.classifications.length === 0) return input;
  return {
    ...input,
    classifications: input.classifications.map((c) => ({ ...c, validated: validateSignal(c.type, c.value) === true })),
  };
}

/**
 * The decisions as a create answers them: each with its policy's message, when it has one
 * (`messages`: by policy id). The message is the policy's, not the interaction's: it is neither
 * stored with the interaction nor sent in its events.
 */
function withMessages(decisions: PolicyDecision[], messages: ReadonlyMap<string, string>): PolicyDecision[] {
  if (messages.size === 0 || decisions.length === 0) return decisions;
  return decisions.map((decision) => {
    const message = messages.get(decision.policy_id);
    return message ? { ...decision, message } : decision;
  });
}

/** What storing some interactions of one tenant writes: rows, alerts and events, all built in memory. */
export interface PreparedIngest {
  /** As the API answers them (with the policies' messages, which the rows and events leave out). */
  interactions: InteractionResponse[];
  /** As they are stored: the detected values encrypted, or only masked. */
  rows: StoredInteraction[];
  alerts: Insertable<AlertsTable>[];
  events: EventEnvelope[];
}

/**
 * Judges validated interactions by the tenant's enabled policies, the same way for a single
 * create and a batch: each gets its id and decisions, block and coach decisions raise alerts,
 * and the events of both are built. When the tenant validates signals, each classification is
 * checked first (policies may count only validated ones), and an interaction with any
 * classification is `interaction.classified`. Nothing is written here (see `writeIngest`).
 */
export function prepareIngest(
  tenantId: string, inputs: readonly ValidInteraction[], rules: TenantRules, now: Date, validateSignals: boolean,
  protection: ValueProtection,
): PreparedIngest {
  const { policies, platformStatuses } = rules;
  const messages = new Map(policies.flatMap((policy) => (policy.message ? [[policy.id, policy.message] as const] : [])));
  const prepared: PreparedIngest = { interactions: [], rows: [], alerts: [], events: [] };
  const timestamp = now.toISOString();
  for (const raw of inputs) {
    const input = validateSignals ? withValidatedSignals(raw) : raw;
    const protectedValues = input.classifications.map((c) => protectClassification(protection.keys, protection.mode, c));
    const platformStatus = platformStatuses.get(input.platform_id) ?? DEFAULT_PLATFORM_STATUS;
    const interaction: InteractionResponse = {
      id: uuidv7(now.getTime()),
      tenant_id: tenantId,
      timestamp,
      ...input,
      classifications: protectedValues.map((c) => c.returned),
      policy_decisions: evaluate(policies, { ...input, platform_status: platformStatus }),
    };
    const answered = withMessages(interaction.policy_decisions, messages);
    prepared.interactions.push(answered === interaction.policy_decisions ? interaction : { ...interaction, policy_decisions: answered });
    prepared.rows.push(protectedValues.length === 0 ? interaction
      : { ...interaction, classifications: protectedValues.map((c) => c.stored) });
    const data = toInteractionEventData(interaction);
    prepared.events.push(toEnvelope(tenantId, { eventType: 'interaction.created', data }, now));
    if (interaction.policy_decisions.length > 0) {
      prepared.events.push(toEnvelope(tenantId, { eventType: 'interaction.policy_violated', data }, now));
    }
    if (interaction.risk_score >= HIGH_RISK_THRESHOLD) {
      prepared.events.push(toEnvelope(tenantId, { eventType: 'interaction.high_risk', data }, now));
    }
    if (validateSignals && interaction.classifications.length > 0) {
      prepared.events.push(toEnvelope(tenantId, { eventType: 'interaction.classified', data }, now));
    }
    for (const alert of alertsFor(tenantId, interaction.id, interaction.policy_decisions, policies, now)) {
      prepared.alerts.push(alert);
      for (const event of alertEvents(toAlertResponse(alert))) prepared.events.push(toEnvelope(tenantId, event, now));
    }
  }
  return prepared;
}
