import { uuidv7 } from '../../lib/ids.js';
import type { EventType } from '../events/catalog.js';

/** A plausible `data` for the test operation, shaped like the real event of that type. */
export function sampleEventData(eventType: EventType, tenantId: string, now: Date): unknown {
  const at = now.toISOString();
  const [resource] = eventType.split('.') as [string];
  if (eventType === 'user.deleted' || eventType === 'policy.deleted') return { id: uuidv7(now.getTime()) };
  if (resource === 'user') {
    return {
      id: uuidv7(now.getTime()), tenant_id: tenantId, email: 'sample.user@example.com', display_name: 'Sample User',
      role: 'viewer', status: eventType === 'user.invited' ? 'pending' : 'active', created_at: at, updated_at: at,
      last_login: null, invited_by: 'admin@example.com',
    };
  }
  if (resource === 'policy') {
    return {
      id: uuidv7(now.getTime()), name: 'Sample policy', description: 'Blocks card numbers sent to AI platforms',
      action: 'block', severity: 'high', enabled: eventType !== 'policy.disabled',
      conditions: { classification_types: ['CREDIT_CARD'] }, created_at: at, updated_at: at,
    };
  }
  if (resource === 'alert') {
    const resolved = eventType === 'alert.resolved';
    return {
      id: uuidv7(now.getTime()), interaction_id: uuidv7(now.getTime()), policy_id: uuidv7(now.getTime()),
      policy_name: 'Sample policy', severity: eventType === 'alert.severity_critical' ? 'critical' : 'high',
      status: resolved ? 'resolved' : 'open', created_at: at, resolved_at: resolved ? at : null,
      resolved_by: resolved ? 'admin@example.com' : null,
    };
  }
  return {
    id: uuidv7(now.getTime()), tenant_id: tenantId, timestamp: at, platform_id: 'chatgpt',
    content_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    interaction_type: 'prompt', content_metadata: { model: 'sample-model' },
    classifications: [{ type: 'CREDIT_CARD', value: '4111********1111', score: 0.97, start: 10, end: 29 }],
    risk_score: 0.91, direction: 'outbound', source: 'browser_extension', user_id: null,
    policy_decisions: [{ policy_id: uuidv7(now.getTime()), policy_name: 'Sample policy', action: 'block' }],
  };
}
