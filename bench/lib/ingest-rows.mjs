// The rows one create writes, as the limits of the ingest bench write them without the service: an
// `interactions` row of the generated mix (bench/lib/service.mjs `interaction(i)`, judged by the bench's two
// policies) and its interaction.created event, one `webhook_messages` row and one `webhook_jobs` row.
import { interaction } from './interactions.mjs';

export const WEBHOOK_ID = 'whk_0000000000007000800000000000bench';
const LOG_POLICY = { policy_id: '00000000-0000-7000-8000-00000000b10c', policy_name: 'Log risky prompts', action: 'log' };
const BLOCK_POLICY = { policy_id: '00000000-0000-7000-8000-00000000b10b', policy_name: 'Block card numbers', action: 'block' };

/** The policy decisions the bench's two policies give the i-th generated interaction. */
export function decisionsFor(item) {
  const decisions = [];
  if (item.classifications.some((c) => c.type === 'CREDIT_CARD')) decisions.push({ ...BLOCK_POLICY, matched_conditions: 1 });
  if (item.risk_score >= 0.7) decisions.push({ ...LOG_POLICY, matched_conditions: 1 });
  return decisions;
}

/** The i-th interaction as stored, and the envelope of its interaction.created event (as the service builds them). */
export function storedInteraction(i, { tenantId, id, eventId, timestamp }) {
  const item = interaction(i);
  const decisions = decisionsFor(item);
  const row = { id, tenant_id: tenantId, timestamp, ...item, interaction_type: 'prompt', user_id: null, policy_decisions: decisions };
  const data = { ...row, policy_decisions: decisions.map(({ matched_conditions: _, ...d }) => d) };
  const envelope = JSON.stringify({ id: eventId, timestamp, event_type: 'interaction.created', tenant_id: tenantId, data });
  return { row, envelope };
}

/** The mean envelope length over the mix (300 consecutive interactions): the size of the pgbench payload. */
export function meanEnvelopeBytes() {
  const ids = { tenantId: crypto.randomUUID(), id: crypto.randomUUID(), eventId: `evt_${'0'.repeat(32)}`, timestamp: new Date().toISOString() };
  let sum = 0;
  for (let i = 0; i < 300; i += 1) sum += Buffer.byteLength(storedInteraction(i, ids).envelope);
  return Math.round(sum / 300);
}

export const JSON_SAMPLES = {
  metadata: JSON.stringify(interaction(1).content_metadata),
  classification: JSON.stringify(interaction(0).classifications),
  logDecision: JSON.stringify([{ ...LOG_POLICY, matched_conditions: 1 }]),
};
