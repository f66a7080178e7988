import type {
  Direction, InteractionType, PolicyAction, PolicyConditions, PolicyDecision, Severity, Source,
} from '../../kernel/tables/interactions.js';
import type { PlatformStatus } from '../../kernel/tables/platforms.js';
import { DEFAULT_PLATFORM_STATUS } from '../../kernel/vocabulary.js';

/** What evaluation needs of a policy. */
export interface PolicyRule {
  id: string;
  name: string;
  action: PolicyAction;
  /** Not used to judge; the severity of the alerts a block or coach decision raises. */
  severity: Severity;
  enabled: boolean;
  conditions: PolicyConditions;
  /** Not used to judge; what the client shows when the policy coaches or blocks. */
  message?: string | null;
}

/** What evaluation needs of an interaction. */
export interface EvaluatedInteraction {
  platform_id: string;
  classifications: ReadonlyArray<{ type: string; validated?: boolean }>;
  risk_score: number;
  direction: Direction;
  source: Source;
  interaction_type: InteractionType;
  /** The tenant's status of the interaction's platform when it is created (none set: unsanctioned). */
  platform_status?: PlatformStatus;
}

const ACTION_RANK: Record<PolicyAction, number> = { block: 0, coach: 1, log: 2 };

/** How many conditions a policy has; when it matches, all of them matched. */
export function countConditions(conditions: PolicyConditions): number {
  return Object.values(conditions).filter((value) => value !== undefined && value !== false).length;
}

/** Whether every condition the policy has holds for the interaction (none: it matches everything). */
export function matches(conditions: PolicyConditions, interaction: EvaluatedInteraction): boolean {
  const {
    platform_ids, classification_types, min_risk_score, directions, sources, interaction_types, validated_only, platform_statuses,
  } = conditions;
  if (platform_ids && !platform_ids.includes(interaction.platform_id)) return false;
  if (platform_statuses && !platform_statuses.includes(interaction.platform_status ?? DEFAULT_PLATFORM_STATUS)) return false;
  const signals = validated_only ? interaction.classifications.filter((c) => c.validated === true) : interaction.classifications;
  if (validated_only && signals.length === 0) return false;
  if (classification_types && !signals.some((c) => classification_types.includes(c.type))) return false;
  if (min_risk_score !== undefined && !(interaction.risk_score >= min_risk_score)) return false;
  if (directions && !directions.includes(interaction.direction)) return false;
  if (sources && !sources.includes(interaction.source)) return false;
  if (interaction_types && !interaction_types.includes(interaction.interaction_type)) return false;
  return true;
}

/**
 * The decisions of the enabled policies matching the interaction: strongest action first
 * (block, coach, log), then by name and id so the order is stable.
 */
export function evaluate(policies: readonly PolicyRule[], interaction: EvaluatedInteraction): PolicyDecision[] {
  return policies
    .filter((policy) => policy.enabled && matches(policy.conditions, interaction))
    .sort((a, b) => ACTION_RANK[a.action] - ACTION_RANK[b.action] || compare(a.name, b.name) || compare(a.id, b.id))
    .map((policy) => ({
      policy_id: policy.id,
      policy_name: policy.name,
      action: policy.action,
      matched_conditions: countConditions(policy.conditions),
    }));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
