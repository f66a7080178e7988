import { prefixedId, uuidv7 } from '../../kernel/ids.js';
import type { AlertResponse } from '../../modules/alerts/alerts.schemas.js';
import type { AuditEntryResponse } from '../../modules/audit/audit.schemas.js';
import type { PolicyResponse } from '../../modules/policies/policies.schemas.js';
import type { UserResponse } from '../../modules/users/users.schemas.js';
import type { EventType } from '../../platform/outbox/event-types.js';
import type { InteractionEventData } from './event-schemas.js';
import type { EventEnvelope } from '../../platform/outbox/outbox.js';

/**
 * Where a sample's ids and times come from: fixed values for the published catalog (stable
 * documentation), or fresh ones for the test operation (a receiver that deduplicates on ids
 * still sees each test).
 */
export interface SampleSeed {
  tenantId: string;
  now: Date;
  eventId: string;
  /** The id named `name`: the same name gives the same id within one sample. */
  id(name: string): string;
}

const EXAMPLE_IDS: Record<string, string> = {
  tenant: '01935c1e-7a40-7c1a-9b2e-3f4d5a6b7c8d',
  interaction: '01935c1e-8e21-7f03-a5d4-1b2c3d4e5f60',
  policy: '01935b90-42f7-7a8e-8c61-9d0e1f2a3b4c',
  alert: '01935c1e-8e22-7b45-b3c2-6a7b8c9d0e1f',
  user: '01935c0d-5b13-7e9a-9f80-2c3d4e5f6a7b',
  endUser: '01935a77-0c6e-7d2b-8a19-4e5f6a7b8c9d',
  admin: '01934f12-9d88-7c55-b6a3-0f1e2d3c4b5a',
  auditEntry: '01935c1e-8e24-7a11-9c3d-5e6f7a8b9c0d',
  request: '4f6c2a9e-1b3d-4e5f-8a7b-9c0d1e2f3a4b',
};

/** The seed of the published samples. */
export const EXAMPLE_SEED: SampleSeed = {
  tenantId: EXAMPLE_IDS.tenant!,
  now: new Date('2026-03-02T09:15:27.482Z'),
  eventId: 'evt_01935c1e8e2373d1a9b84c5d6e7f8091',
  id: (name) => {
    const id = EXAMPLE_IDS[name];
    if (!id) throw new Error(`no example id named ${name}`);
    return id;
  },
};

/** A seed with new ids and the given time, for one delivery of a sample. */
export function freshSeed(tenantId: string, now: Date): SampleSeed {
  const ids = new Map<string, string>();
  return {
    tenantId,
    now,
    eventId: prefixedId('evt', now.getTime()),
    id: (name) => {
      if (!ids.has(name)) ids.set(name, uuidv7(now.getTime()));
      return ids.get(name)!;
    },
  };
}

/** A realistic envelope of `eventType`, shaped exactly like the events the service emits. */
export function sampleEnvelope(eventType: EventType, seed: SampleSeed): EventEnvelope {
  return {
    id: seed.eventId,
    timestamp: seed.now.toISOString(),
    event_type: eventType,
    tenant_id: seed.tenantId,
    data: SAMPLE_DATA[eventType](seed),
  };
}

/** The sample of a type with fresh ids, for a tenant at a time: what a webhook's test send delivers. */
export function freshSample(eventType: EventType, tenantId: string, now: Date): EventEnvelope {
  return sampleEnvelope(eventType, freshSeed(tenantId, now));
}

const DAY_MS = 24 * 60 * 60 * 1000;
const earlier = (seed: SampleSeed, ms: number) => new Date(seed.now.getTime() - ms).toISOString();

function interaction(seed: SampleSeed, variant: 'plain' | 'violating' | 'classified'): InteractionEventData {
  const violating = variant === 'violating';
  return {
    id: seed.id('interaction'),
    tenant_id: seed.tenantId,
    timestamp: seed.now.toISOString(),
    platform_id: 'chatgpt',
    content_hash: '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8',
    interaction_type: 'prompt',
    content_metadata: { url: 'https://chatgpt.com/', model: 'gpt-4o', snippet_length: 412 },
    classifications: variant === 'classified'
      ? [
        { type: 'CREDIT_CARD', value: '4111 1111 1111 1111', score: 0.97, start: 118, end: 137, validated: true },
        { type: 'IBAN', value: 'FR76 3000 6000 0112 3456 7890 188', score: 0.74, start: 160, end: 193, validated: false },
      ]
      : violating
      ? [
        { type: 'CREDIT_CARD', value: '4111********1111', score: 0.97, start: 118, end: 137 },
        { type: 'PERSON_NAME', value: 'J*** D**', score: 0.81, start: 12, end: 20 },
      ]
      : [{ type: 'EMAIL', value: 'j***@example.com', score: 0.93, start: 40, end: 56 }],
    risk_score: violating ? 0.91 : 0.35,
    direction: 'outbound',
    source: 'browser_extension',
    user_id: seed.id('endUser'),
    policy_decisions: violating ? [{ policy_id: seed.id('policy'), policy_name: 'No payment card numbers', action: 'block' }] : [],
  };
}

function alert(seed: SampleSeed, severity: 'high' | 'critical', resolved = false): AlertResponse {
  return {
    id: seed.id('alert'),
    interaction_id: seed.id('interaction'),
    policy_id: seed.id('policy'),
    policy_name: 'No payment card numbers',
    severity,
    status: resolved ? 'resolved' : 'open',
    created_at: resolved ? earlier(seed, 2 * 60 * 60 * 1000) : seed.now.toISOString(),
    resolved_at: resolved ? seed.now.toISOString() : null,
    resolved_by: resolved ? seed.id('admin') : null,
  };
}

function policy(seed: SampleSeed, enabled = true): PolicyResponse {
  return {
    id: seed.id('policy'),
    name: 'No payment card numbers',
    description: 'Blocks prompts that contain a payment card number, on every AI platform',
    action: 'block',
    severity: 'high',
    enabled,
    conditions: { classification_types: ['CREDIT_CARD'], min_risk_score: 0.5, directions: ['outbound'] },
    message: 'Card numbers must never be sent to an AI platform: remove it before sending.',
    created_at: earlier(seed, 30 * DAY_MS),
    updated_at: seed.now.toISOString(),
  };
}

function user(seed: SampleSeed, state: 'invited' | 'activated' | 'promoted'): UserResponse {
  const invited = state === 'invited';
  const created = invited ? seed.now : new Date(seed.now.getTime() - 2 * DAY_MS);
  return {
    id: seed.id('user'),
    tenant_id: seed.tenantId,
    email: 'jordan.lee@acme.example',
    display_name: invited ? null : 'Jordan Lee',
    role: state === 'promoted' ? 'admin' : 'viewer',
    status: invited ? 'pending' : 'active',
    created_at: created.toISOString(),
    updated_at: seed.now.toISOString(),
    last_login: invited ? null : seed.now.toISOString(),
    invited_by: 'sam.rivera@acme.example',
    // Present only while the invitation is pending, as in the API's answers.
    ...(invited ? { invitation_expires_at: new Date(seed.now.getTime() + 7 * DAY_MS).toISOString() } : {}),
  };
}

function auditEntry(seed: SampleSeed): AuditEntryResponse {
  return {
    id: seed.id('auditEntry'),
    occurred_at: seed.now.toISOString(),
    actor_type: 'user',
    actor_id: seed.id('admin'),
    actor_label: 'sam.rivera@acme.example',
    action: 'user.role_changed',
    target_type: 'user',
    target_id: seed.id('user'),
    details: { email: 'alex.kim@acme.example', from: 'viewer', to: 'admin' },
    ip: '203.0.113.24',
    request_id: seed.id('request'),
  };
}

const SAMPLE_DATA: Record<EventType, (seed: SampleSeed) => unknown> = {
  'interaction.created': (seed) => interaction(seed, 'plain'),
  'interaction.policy_violated': (seed) => interaction(seed, 'violating'),
  'interaction.high_risk': (seed) => interaction(seed, 'violating'),
  'interaction.classified': (seed) => interaction(seed, 'classified'),
  'alert.created': (seed) => alert(seed, 'high'),
  'alert.severity_critical': (seed) => alert(seed, 'critical'),
  'alert.severity_high': (seed) => alert(seed, 'high'),
  'alert.resolved': (seed) => alert(seed, 'high', true),
  'policy.created': (seed) => policy(seed),
  'policy.updated': (seed) => policy(seed),
  'policy.deleted': (seed) => ({ id: seed.id('policy') }),
  'policy.enabled': (seed) => policy(seed, true),
  'policy.disabled': (seed) => policy(seed, false),
  'user.invited': (seed) => user(seed, 'invited'),
  'user.activated': (seed) => user(seed, 'activated'),
  'user.role_changed': (seed) => user(seed, 'promoted'),
  'user.deleted': (seed) => ({ id: seed.id('user') }),
  'audit.entry': (seed) => auditEntry(seed),
};
