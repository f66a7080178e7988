import type { Selectable } from 'kysely';
import type { InteractionsTable } from '../../kernel/tables/interactions.js';
import type { InteractionResponse } from './interactions.schemas.js';
import type { TenantKeys } from '../../platform/crypto/envelope.js';
import { revealClassifications } from './detected-values.js';

/** A stored interaction as the API returns it, its detected values opened with its tenant's keys. */
export function toInteractionResponse(row: Selectable<InteractionsTable>, keys: TenantKeys): InteractionResponse {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    timestamp: row.timestamp.toISOString(),
    platform_id: row.platform_id,
    content_hash: row.content_hash,
    interaction_type: row.interaction_type,
    content_metadata: row.content_metadata,
    classifications: revealClassifications(keys, row.classifications),
    risk_score: row.risk_score,
    direction: row.direction,
    source: row.source,
    user_id: row.user_id,
    policy_decisions: row.policy_decisions,
  };
}

/**
 * The `data` of interaction events: the interaction as the API returns it, decisions without
 * matched_conditions. Without decisions that is the interaction itself, whose serialisation the
 * row insert then shares (`jsonOf`).
 */
export function toInteractionEventData(interaction: InteractionResponse) {
  if (interaction.policy_decisions.length === 0) return interaction;
  return {
    ...interaction,
    policy_decisions: interaction.policy_decisions.map(({ policy_id, policy_name, action }) => ({ policy_id, policy_name, action })),
  };
}
