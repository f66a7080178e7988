// The governance bench's policy dry-run: typical policies (a create body and the same conditions in SQL,
// written apart from the service for the check), the service's own dry-run statement EXPLAINed
// (dryRunStatement of dist/modules/policies/policies.dry-run.js), and the limit beside it: EXPLAIN
// ANALYZE of a plain count(*) of the same newest rows.
import { dryRunStatement } from '../../dist/modules/policies/policies.dry-run.js';

const textArray = (values) => (values ? `array[${values.map((v) => `'${v}'`).join(', ')}]::text[]` : 'null::text[]');

/** matchesSql() of policies.dry-run.ts for a classification condition, values written in. */
const classificationSql = (types, validatedOnly = false) => `exists (select 1 from jsonb_array_elements(classifications) c
      where (${textArray(types)} is null or c->>'type' = any(${textArray(types)}))
        and (not ${validatedOnly} or c->'validated' = 'true'::jsonb))`;

/** Three typical policies: `{ name, body, where }`, `where` the same conditions as SQL (for the check and EXPLAIN). */
export const POLICIES = [
  {
    name: 'classification_types=[CREDIT_CARD], block',
    body: { name: 'Card numbers', action: 'block', conditions: { classification_types: ['CREDIT_CARD'] } },
    where: classificationSql(['CREDIT_CARD']),
  },
  {
    name: 'platform_ids=[chatgpt,copilot] + min_risk_score=0.7, coach',
    body: { name: 'Risky prompts to two platforms', action: 'coach', conditions: { platform_ids: ['chatgpt', 'copilot'], min_risk_score: 0.7 } },
    where: `platform_id = any(${textArray(['chatgpt', 'copilot'])}) and risk_score >= 0.7`,
  },
  {
    name: 'classification_types=[IBAN,CREDIT_CARD] + validated_only, block',
    body: { name: 'Real bank details', action: 'block', conditions: { classification_types: ['IBAN', 'CREDIT_CARD'], validated_only: true } },
    where: classificationSql(['IBAN', 'CREDIT_CARD'], true),
  },
];

/** The newest `limit` rows of the tenant, as the dry-run examines them. */
const newest = (tenantId, limit) => `select * from interactions where tenant_id = '${tenantId}' order by timestamp desc, id desc limit ${limit}`;

/** count(*) of the policy's matches among the newest `limit` rows, written apart from the dry-run (the check). */
export async function expectedMatches(db, sql, tenantId, policy, limit) {
  const { rows: [row] } = await sql.raw(`select count(*)::int as n from (${newest(tenantId, limit)}) w where ${policy.where}`).execute(db);
  return row.n;
}

async function explain(db, sql, options, statement) {
  const { rows } = await sql.raw(`explain (${options}) ${statement}`).execute(db);
  return rows.map((row) => row['QUERY PLAN']);
}

const executionMs = (plan) => Number(/Execution Time: ([\d.]+) ms/.exec(plan.at(-1))[1]);

/** EXPLAIN ANALYZE time (ms) of a plain count(*) over the newest `limit` rows: the limit beside the dry-run. */
export async function countTimeMs(db, sql, tenantId, limit) {
  return executionMs(await explain(db, sql, 'analyze', `select count(*) from (select 1 from interactions
    where tenant_id = '${tenantId}' order by timestamp desc, id desc limit ${limit}) w`));
}

/** EXPLAIN (ANALYZE, BUFFERS) of the service's dry-run statement for `policy` over the whole range: `{ ms, plan }`. */
export async function explainDryRun(db, sql, tenantId, policy, limit) {
  const statement = dryRunStatement(tenantId, policy.body.conditions, policy.body.action, {}, limit);
  const { rows } = await sql`explain (analyze, buffers) ${statement}`.execute(db);
  const plan = rows.map((row) => row['QUERY PLAN']);
  return { ms: executionMs(plan), plan: plan.join('\n') };
}
