import { describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../../../src/edge/event-catalog/event-catalog.js';
import { freshSample } from '../../../src/edge/event-catalog/event-samples.js';
import { renderBody } from '../../../src/modules/delivery/formats/formats.js';
import { OCSF_PRODUCT, riskSeverityId, type StoredEnvelope, toOcsfEvent } from '../../../src/modules/delivery/formats/ocsf.js';
import { sendInFormat } from '../../../src/modules/delivery/sender.js';
import { EVENT_TYPES, type EventType } from '../../../src/platform/outbox/event-types.js';
import { ocsfValidator } from './ocsf-schemas.js';

const CONTEXT = { host: 'ugs.example.com' };

const check = ocsfValidator();
const TENANT = '01935c1e-7a40-7c1a-9b2e-3f4d5a6b7c8d';

/** The class each event type is sent as. */
const CLASS_OF: Record<EventType, number> = {
  'interaction.created': 2006,
  'interaction.policy_violated': 2006,
  'interaction.high_risk': 2006,
  'interaction.classified': 2006,
  'alert.created': 2006,
  'alert.severity_critical': 2006,
  'alert.severity_high': 2006,
  'alert.resolved': 2006,
  'policy.created': 3004,
  'policy.updated': 3004,
  'policy.deleted': 3004,
  'policy.enabled': 3004,
  'policy.disabled': 3004,
  'user.invited': 3001,
  'user.activated': 3001,
  'user.role_changed': 3001,
  'user.deleted': 3001,
  'platform.discovered': 2004,
  'audit.entry': 3001, // the catalog's sample is a role change
};

const sampleOf = (type: EventType) => EVENT_CATALOG.find((entry) => entry.type === type)!.sample as StoredEnvelope;
const auditEnvelope = (entry: Record<string, unknown>): StoredEnvelope => {
  const sample = sampleOf('audit.entry');
  return { ...sample, data: { ...(sample.data as Record<string, unknown>), details: {}, ...entry } };
};

describe('the OCSF mapping of the event catalog', () => {
  it('maps the sample of every event type to a valid event of its class, with the envelope in metadata', () => {
    for (const type of EVENT_TYPES) {
      const sample = sampleOf(type);
      const event = toOcsfEvent(sample);
      expect(check(event), type).toEqual([]);
      expect(event.class_uid, type).toBe(CLASS_OF[type]);
      expect(event.type_uid, type).toBe(CLASS_OF[type] * 100 + (event.activity_id as number));
      expect(event.time, type).toBe(Date.parse(sample.timestamp));
      expect(event.metadata, type).toEqual({
        version: '1.3.0', product: OCSF_PRODUCT, uid: sample.id, tenant_uid: sample.tenant_id, event_code: type,
        original_time: sample.timestamp,
      });
      // Fresh samples (what a test send delivers) too.
      expect(check(toOcsfEvent(freshSample(type, TENANT, new Date()))), type).toEqual([]);
    }
  });

  it('makes a Data Security Finding of an interaction: classifications, strongest policy, detection system, user, risk', () => {
    const sample = sampleOf('interaction.policy_violated');
    const data = sample.data as Record<string, any>;
    expect(toOcsfEvent(sample)).toMatchObject({
      category_uid: 2, category_name: 'Findings', class_uid: 2006, class_name: 'Data Security Finding',
      activity_id: 1, activity_name: 'Create', type_uid: 200601, type_name: 'Data Security Finding: Create',
      severity_id: 4, severity: 'High', risk_score: 91, timezone_offset: 0,
      finding_info: {
        uid: data.id, title: 'AI interaction matched a usage policy', created_time: Date.parse(data.timestamp),
        types: ['CREDIT_CARD', 'PERSON_NAME'],
      },
      data_security: {
        category_id: 3, category: 'Financial', detection_system_id: 1, detection_system: 'Endpoint',
        detection_pattern: 'CREDIT_CARD, PERSON_NAME',
        policy: { uid: data.policy_decisions[0].policy_id, name: 'No payment card numbers' },
      },
      actor: { user: { uid: data.user_id } },
      resources: [{ uid: data.id, type: 'AI interaction', name: 'chatgpt', data: { content_hash: data.content_hash, policy_actions: ['block'] } }],
    });
    const plain = toOcsfEvent(sampleOf('interaction.created'));
    expect(plain).toMatchObject({ severity_id: 2, data_security: { category_id: 1, category: 'Personal', detection_pattern: 'EMAIL' } });
    expect(plain.data_security).not.toHaveProperty('policy');
  });

  it('reads detection systems from the source and severities from the risk score', () => {
    const systems = { browser_extension: 1, endpoint_agent: 1, proxy: 2, api: 10, something_new: 99 };
    for (const [source, id] of Object.entries(systems)) {
      const sample = sampleOf('interaction.created');
      const event = toOcsfEvent({ ...sample, data: { ...(sample.data as object), source } });
      expect(event.data_security, source).toMatchObject({ detection_system_id: id });
      expect(check(event)).toEqual([]);
    }
    expect([0, 0.19, 0.2, 0.49, 0.5, 0.79, 0.8, 0.94, 0.95, 1].map(riskSeverityId)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
  });

  it('creates a finding for a raised alert and closes it when resolved, with the alert severity and status', () => {
    const raised = toOcsfEvent(sampleOf('alert.severity_critical'));
    expect(raised).toMatchObject({
      class_uid: 2006, activity_id: 1, type_uid: 200601, severity_id: 5, severity: 'Critical', status_id: 1, status: 'New',
      finding_info: { types: ['AI usage policy violation'] },
      data_security: { policy: { name: 'No payment card numbers' } },
    });
    expect(toOcsfEvent(sampleOf('alert.created'))).toMatchObject({ severity_id: 4, severity: 'High' });
    const alert = sampleOf('alert.resolved');
    const data = alert.data as Record<string, any>;
    expect(toOcsfEvent(alert)).toMatchObject({
      activity_id: 3, activity_name: 'Close', type_uid: 200603, status_id: 4, status: 'Resolved',
      finding_info: { uid: data.id, created_time: Date.parse(data.created_at), modified_time: Date.parse(data.resolved_at) },
      actor: { user: { uid: data.resolved_by } },
      resources: [{ uid: data.interaction_id, type: 'AI interaction' }],
    });
    for (const severity of ['low', 'medium']) {
      const event = toOcsfEvent({ ...alert, data: { ...data, severity } });
      expect(event.severity_id).toBe(severity === 'low' ? 2 : 3);
    }
  });

  it('sends policy changes as Entity Management of a Policy entity, and user events as Account Change', () => {
    const activities = { 'policy.created': 1, 'policy.updated': 3, 'policy.deleted': 4, 'policy.enabled': 8, 'policy.disabled': 9 };
    for (const [type, id] of Object.entries(activities)) {
      const sample = sampleOf(type as EventType);
      expect(toOcsfEvent(sample), type).toMatchObject({
        class_uid: 3004, activity_id: id, status_id: 1, entity: { uid: (sample.data as { id: string }).id, type: 'Policy', type_id: 5 },
      });
    }
    const users = { 'user.invited': 1, 'user.activated': 2, 'user.role_changed': 99, 'user.deleted': 6 };
    for (const [type, id] of Object.entries(users)) {
      const sample = sampleOf(type as EventType);
      expect(toOcsfEvent(sample), type).toMatchObject({ class_uid: 3001, activity_id: id, user: { uid: (sample.data as { id: string }).id } });
    }
    expect(toOcsfEvent(sampleOf('user.role_changed'))).toMatchObject({
      activity_name: 'Role Change', user: { email_addr: 'jordan.lee@acme.example', full_name: 'Jordan Lee', type_id: 2, type: 'Admin' },
    });
  });

  it('sends audit entries of logins as Authentication, of user changes as Account Change, and the rest as API Activity', () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ action: 'auth.login', target_type: 'user' }, { class_uid: 3002, activity_id: 1, status_id: 1, src_endpoint: { ip: '203.0.113.24' } }],
      [{ action: 'auth.login', target_type: 'user', details: { via: 'sso' } }, { class_uid: 3002, status_id: 1, auth_protocol_id: 4 }],
      [{ action: 'auth.login_failed', target_type: 'user' }, { class_uid: 3002, activity_id: 1, status_id: 2, status: 'Failure', severity_id: 2 }],
      [{ action: 'auth.login_refused', target_type: 'user', details: { reason: 'sso_required' } },
        { class_uid: 3002, status_id: 2, status_detail: 'sso_required' }],
      [{ action: 'auth.sso_refused', actor_type: 'system', actor_id: null, actor_label: 'single sign-on', target_type: 'tenant',
        details: { reason: 'unknown_user' } }, { class_uid: 3002, status_id: 2, user: { name: 'unknown' } }],
      [{ action: 'user.invited', details: { email: 'new@acme.example', role: 'viewer' } },
        { class_uid: 3001, activity_id: 1, user: { email_addr: 'new@acme.example' }, actor: { user: { name: 'sam.rivera@acme.example' } } }],
      [{ action: 'user.status_changed', details: { to: 'inactive' } }, { class_uid: 3001, activity_id: 5 }],
      [{ action: 'user.status_changed', details: { to: 'active' } }, { class_uid: 3001, activity_id: 2 }],
      [{ action: 'user.password_reset' }, { class_uid: 3001, activity_id: 4 }],
      [{ action: 'user.deleted' }, { class_uid: 3001, activity_id: 6 }],
      [{ action: 'user.profile_updated' }, { class_uid: 3001, activity_id: 99, activity_name: 'user.profile_updated' }],
      [{ action: 'webhook.created', target_type: 'webhook', target_id: 'whk_1' },
        { class_uid: 6003, activity_id: 1, api: { operation: 'webhook.created', request: { uid: expect.any(String) } },
          resources: [{ uid: 'whk_1', type: 'webhook' }] }],
      [{ action: 'interactions.exported' }, { class_uid: 6003, activity_id: 2 }],
      [{ action: 'tenant.updated' }, { class_uid: 6003, activity_id: 3 }],
      [{ action: 'api_key.revoked' }, { class_uid: 6003, activity_id: 4 }],
      [{ action: 'interactions.erased' }, { class_uid: 6003, activity_id: 4 }],
      [{ action: 'retention.applied', actor_type: 'system', actor_id: null, actor_label: null, ip: null, request_id: null },
        { class_uid: 6003, activity_id: 3, actor: { app_name: OCSF_PRODUCT.name }, src_endpoint: { svc_name: OCSF_PRODUCT.name } }],
      [{ action: 'signals.looked_up', actor_type: 'api_key', actor_id: 'key-1', actor_label: 'dlp bridge' },
        { class_uid: 6003, activity_id: 2, actor: { app_uid: 'key-1', app_name: 'dlp bridge' } }],
      [{ action: 'something.new_happened' }, { class_uid: 6003, activity_id: 99, activity_name: 'something.new_happened' }],
    ];
    for (const [entry, expected] of cases) {
      const event = toOcsfEvent(auditEnvelope(entry));
      expect(check(event), JSON.stringify(entry)).toEqual([]);
      expect(event, JSON.stringify(entry)).toMatchObject(expected);
      expect(event.unmapped).toMatchObject({ action: entry.action });
    }
  });

  it('makes a Detection Finding of a discovered platform: low severity when the catalog lacks it', () => {
    const sample = sampleOf('platform.discovered');
    const data = sample.data as { platform_id: string; user_id: string; first_seen: string };
    expect(toOcsfEvent(sample)).toMatchObject({
      class_uid: 2004, activity_id: 1, type_uid: 200401, severity_id: 1, status_id: 1,
      finding_info: { uid: data.platform_id, title: 'AI platform discovered', first_seen_time: Date.parse(data.first_seen) },
      resources: [{ uid: data.platform_id, type: 'AI platform' }],
      evidences: [{ actor: { user: { uid: data.user_id } } }],
    });
    const unknown = toOcsfEvent({ ...sample, data: { ...data, platform_id: 'acme-notes-ai', catalog: false } });
    expect(check(unknown)).toEqual([]);
    expect(unknown).toMatchObject({ severity_id: 2, severity: 'Low', message: 'AI platform discovered: acme-notes-ai (not in the catalog)' });
  });

  it('keeps an event valid when the stored data lacks fields (an envelope of an earlier release), and refuses what is no envelope', () => {
    for (const type of EVENT_TYPES) {
      const event = toOcsfEvent({ ...sampleOf(type), data: {} });
      expect(check(event), type).toEqual([]);
    }
    expect(() => toOcsfEvent({ id: 'evt_1', timestamp: 'yesterday', event_type: 'user.invited', tenant_id: TENANT, data: {} })).toThrow();
  });

  it('never carries a detected value: only its type', () => {
    const classified = sampleOf('interaction.classified');
    const values = ((classified.data as { classifications: Array<{ value: string }> }).classifications).map((c) => c.value);
    expect(values.length).toBeGreaterThan(0);
    const sent = renderBody('ocsf', JSON.stringify(classified), CONTEXT);
    for (const value of values) expect(sent).not.toContain(value);
    expect(sent).toContain('CREDIT_CARD');
  });

  it('is a pure function of the envelope: the same envelope gives the same bytes', () => {
    const sample = sampleOf('interaction.classified');
    expect(renderBody('ocsf', JSON.stringify(sample), CONTEXT)).toBe(renderBody('ocsf', JSON.stringify(structuredClone(sample)), CONTEXT));
    expect(renderBody('standard', JSON.stringify(sample), CONTEXT)).toBe(JSON.stringify(sample));
  });
});

describe('the OCSF class schemas of the tests', () => {
  it('refuse a misspelt attribute, a missing required one, a value outside its enum and a wrong type', () => {
    const event = toOcsfEvent(sampleOf('interaction.policy_violated')) as Record<string, any>;
    const broken = (change: (copy: Record<string, any>) => void) => {
      const copy = structuredClone(event);
      change(copy);
      return check(copy);
    };
    expect(check(event)).toEqual([]);
    expect(broken((e) => { e.finding_info.titel = e.finding_info.title; })).not.toEqual([]);
    expect(broken((e) => { e.severty = 'High'; })).not.toEqual([]);
    expect(broken((e) => { delete e.metadata.product.vendor_name; })).not.toEqual([]);
    expect(broken((e) => { delete e.finding_info; })).not.toEqual([]);
    expect(broken((e) => { e.severity_id = 7; })).not.toEqual([]);
    expect(broken((e) => { e.category_uid = 3; })).not.toEqual([]);
    expect(broken((e) => { e.type_uid = 200602; })).not.toEqual([]);
    expect(broken((e) => { e.activity_id = 5; e.type_uid = 200605; })).not.toEqual([]);
    expect(broken((e) => { e.time = e.metadata.original_time; })).not.toEqual([]);
    expect(broken((e) => { e.data_security.detection_system_id = 13; })).not.toEqual([]);
    expect(broken((e) => { e.data_security = {}; })).not.toEqual([]);
    expect(broken((e) => { e.class_uid = 9999; })).toEqual(['no OCSF class schema for class_uid 9999']);
  });
});

describe('sending in a format', () => {
  it('records an event that cannot be written in the format as a failed attempt that sent nothing', async () => {
    const sent: unknown[] = [];
    const sender = { send: async (request: unknown) => (sent.push(request), { statusCode: 200, responseTimeMs: 1, success: true, error: null }) };
    const outcome = await sendInFormat(sender, 'ocsf', '{"id":"evt_1","event_type":"user.invited"}', () => ({ url: 'https://x.test/', headers: {} }), CONTEXT);
    expect(outcome).toMatchObject({ statusCode: 0, success: false, error: expect.stringContaining('could not be written in the ocsf format') });
    expect(sent).toEqual([]);
    const garbled = await sendInFormat(sender, 'ocsf', '{"id":"evt_1","data":"4111 1111', () => ({ url: 'https://x.test/', headers: {} }), CONTEXT);
    expect(garbled.error).toBe('the event could not be written in the ocsf format: the stored event is not JSON');
    const ok = await sendInFormat(sender, 'ocsf', JSON.stringify(sampleOf('user.invited')), (body) => ({ url: 'https://x.test/', headers: { length: String(body.length) } }), CONTEXT);
    expect(ok.success).toBe(true);
    expect(sent).toHaveLength(1);
  });
});
