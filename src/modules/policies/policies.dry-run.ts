import { sql } from 'kysely';
import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import { type DateRange, parseDateRange } from '../../kernel/dates.js';
import type { PolicyAction, PolicyConditions } from '../../kernel/tables/interactions.js';
import type { CreatePolicyInput } from './policies.schemas.js';
import { normaliseConditions } from './policies.service.js';
import { DEFAULT_PLATFORM_STATUS } from '../../kernel/vocabulary.js';

const SAMPLE_SIZE = 20;

export interface DryRunResult {
  matched: number;
  by_action: Record<PolicyAction, number>;
  alerts: number;
  sample_ids: string[];
  scanned: number;
  truncated: boolean;
}

/**
 * What a policy would have done to the interactions already stored in a date range: how many it
 * matches, the strongest action each of those would then get (with the decisions it already has),
 * the alerts it would raise and the newest matching ids. Stores nothing. One statement examines
 * at most `POLICY_DRY_RUN_MAX_ROWS` interactions, newest first; `truncated` says when older
 * ones in the range were left out.
 */
export async function dryRunPolicy(
  deps: Deps, ctx: RequestContext, input: CreatePolicyInput, range: { start_date?: string | undefined; end_date?: string | undefined },
): Promise<DryRunResult> {
  const conditions = normaliseConditions(input.conditions ?? {});
  const { rows: [row] } = await dryRunStatement(ctx.tenantId, conditions, input.action, parseDateRange(range), deps.config.policies.dryRunMaxRows)
    .execute(deps.store.db);
  const matched = row!.matched;
  return {
    matched,
    by_action: { block: row!.block, coach: row!.coach, log: row!.log },
    alerts: input.action === 'log' ? 0 : matched,
    sample_ids: row!.sample ?? [],
    scanned: row!.scanned,
    truncated: row!.more,
  };
}

const ACTION_RANK: Record<PolicyAction, number> = { block: 0, coach: 1, log: 2 };

/**
 * The one statement of a dry-run: a pass over the newest `limit` rows of the range (read in the
 * index's order), each row's match and outcome as columns, the counts in one aggregate;
 * `more` probes the index past the bound. Exported for the bench, which EXPLAINs it.
 */
export function dryRunStatement(
  tenantId: string, conditions: PolicyConditions, action: PolicyAction, { start, end }: DateRange, limit: number,
) {
  const inRange = sql`tenant_id = ${tenantId}
    and (${start ?? null}::timestamptz is null or timestamp >= ${start ?? null}::timestamptz)
    and (${end ?? null}::timestamptz is null or timestamp <= ${end ?? null}::timestamptz)`;
  return sql<{ scanned: number; more: boolean; matched: number; block: number; coach: number; log: number; sample: string[] | null }>`
    with judged as (
      select id, timestamp, ${matchesSql(conditions)} as hit,
        least(${ACTION_RANK[action]}::int, (select min(case d->>'action' when 'block' then 0 when 'coach' then 1 else 2 end)
          from jsonb_array_elements(policy_decisions) d)) as outcome
      from interactions
      where ${inRange}
      order by timestamp desc, id desc
      limit ${limit}
    )
    select count(*)::int as scanned,
      exists (select 1 from interactions where ${inRange} order by timestamp desc, id desc offset ${limit}) as more,
      count(*) filter (where hit)::int as matched,
      count(*) filter (where hit and outcome = 0)::int as block,
      count(*) filter (where hit and outcome = 1)::int as coach,
      count(*) filter (where hit and outcome = 2)::int as log,
      (select array_agg(id::text order by timestamp desc, id desc)
        from (select id, timestamp from judged where hit order by timestamp desc, id desc limit ${SAMPLE_SIZE}) s) as sample
    from judged`;
}

/** The policy's conditions on a stored interaction, in SQL: the same rules as `matches()` (policies.evaluate.ts). */
function matchesSql(conditions: PolicyConditions) {
  const {
    platform_ids, classification_types, min_risk_score, directions, sources, interaction_types, validated_only, platform_statuses,
  } = conditions;
  const clauses = [sql`true`];
  if (platform_ids) clauses.push(sql`platform_id = any(${platform_ids}::text[])`);
  // The statuses as they are now: a dry-run asks what the policy would do with today's decisions.
  if (platform_statuses) {
    clauses.push(sql`coalesce((select s.status from platform_statuses s
      where s.tenant_id = interactions.tenant_id and s.platform_id = interactions.platform_id), ${DEFAULT_PLATFORM_STATUS})
      = any(${platform_statuses}::text[])`);
  }
  if (min_risk_score !== undefined) clauses.push(sql`risk_score >= ${min_risk_score}`);
  if (directions) clauses.push(sql`direction = any(${directions}::text[])`);
  if (sources) clauses.push(sql`source = any(${sources}::text[])`);
  if (interaction_types) clauses.push(sql`interaction_type = any(${interaction_types}::text[])`);
  if (classification_types || validated_only) {
    clauses.push(sql`exists (select 1 from jsonb_array_elements(classifications) c
      where (${classification_types ?? null}::text[] is null or c->>'type' = any(${classification_types ?? null}::text[]))
        and (not ${validated_only === true} or c->'validated' = 'true'::jsonb))`);
  }
  return sql.join(clauses, sql` and `);
}
