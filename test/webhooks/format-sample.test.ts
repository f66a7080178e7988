import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { toOcsfEvent } from '../../src/modules/delivery/formats/ocsf.js';
import { Harness } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';

const sample = (format: string, query?: Record<string, string>) => ({ url: `/api/v1/webhooks/formats/${format}/sample`, query });

// GET /webhooks/formats/{format}/sample: the body a receiver of a format gets for a sample event.
describe.each(STORES)('a format\'s sample body [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { env: { PUBLIC_BASE_URL: 'https://ugs.example.test/' } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('renders the sample of any event type in each format, for the caller\'s tenant, as deliveries are rendered', async () => {
    const t = await h.tenant();
    const get = async (format: string, eventType?: string) => {
      const { url, query } = sample(format, eventType ? { event_type: eventType } : undefined);
      const response = await h.call('GET', url, { token: t.adminToken, ...(query ? { query } : {}) });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { format: string; event_type: string; body: string };
    };

    const standard = await get('standard', 'alert.created');
    expect(standard).toMatchObject({ format: 'standard', event_type: 'alert.created' });
    const envelope = JSON.parse(standard.body);
    expect(envelope).toMatchObject({ id: expect.stringMatching(/^evt_/), event_type: 'alert.created', tenant_id: t.tenantId });

    // Left out, the event type is interaction.created.
    const hec = await get('splunk_hec');
    expect(hec.event_type).toBe('interaction.created');
    const hecEvent = JSON.parse(hec.body);
    expect(hecEvent).toEqual({
      time: Date.parse(hecEvent.event.timestamp) / 1000, host: 'ugs.example.test', source: 'ugs', sourcetype: 'ugs:interaction.created',
      event: expect.objectContaining({ event_type: 'interaction.created', tenant_id: t.tenantId }),
    });

    // A syslog message (RFC 5424, unframed) whose text is the event's CEF line.
    const syslog = await get('syslog', 'alert.created');
    expect(syslog.body).toMatch(/^<\d+>1 \S+ \S+ ugs \S+ alert\.created \[ugs@32473 tenant_id="[^"]+" event_id="evt_[^"]+"\] CEF:0\|UsageGovernance\|ugs\|/);
    expect(syslog.body).toContain(`tenant_id="${t.tenantId}"`);

    for (const eventType of EVENT_TYPES) {
      const ocsf = JSON.parse((await get('ocsf', eventType)).body);
      const own = JSON.parse((await get('standard', eventType)).body);
      expect(ocsf.metadata).toMatchObject({ event_code: eventType, tenant_uid: t.tenantId });
      // The same mapping as a delivery's (ids and times differ between two samples).
      expect(Object.keys(ocsf).sort()).toEqual(Object.keys(toOcsfEvent(own)).sort());
      expect(JSON.parse((await get('splunk_hec', eventType)).body).sourcetype).toBe(`ugs:${eventType}`);
    }
  });

  it('answers 400 for an unknown format or event type, naming it', async () => {
    const t = await h.tenant();
    const cases: Array<[string, Record<string, string> | undefined, string]> = [
      ['SYSLOG', undefined, 'params.format'],
      ['cef', undefined, 'params.format'],
      ['SPLUNK_HEC', undefined, 'params.format'],
      ['x'.repeat(300), undefined, 'params.format'],
      ['ocsf', { event_type: 'alert.unknown' }, 'query.event_type'],
      ['ocsf', { event_type: '' }, 'query.event_type'],
    ];
    for (const [format, query, path] of cases) {
      const { url } = sample(format);
      const response = await h.call('GET', url, { token: t.adminToken, ...(query ? { query } : {}) });
      expect(response.statusCode, `${format} ${JSON.stringify(query)}`).toBe(400);
      expect(response.json()).toMatchObject({ error: expect.any(String), code: 'validation_error', details: [expect.objectContaining({ path })] });
    }
  });

  it('is for admins: 401 without a token, 403 for viewers and API keys', async () => {
    const t = await h.tenant();
    const viewer = await h.user(t, 'viewer');
    const key = await h.apiKey(t, ['interactions:write', 'interactions:read', 'scim']);
    const { url } = sample('splunk_hec');
    expect((await h.call('GET', url)).json()).toMatchObject({ code: 'unauthorized' });
    expect((await h.call('GET', url, { token: 'ugt_not-a-real-token' })).statusCode).toBe(401);
    expect((await h.call('GET', url, { token: viewer.token })).json()).toMatchObject({ code: 'forbidden' });
    expect((await h.call('GET', url, { token: key })).json()).toMatchObject({ code: 'forbidden' });
  });
});
