import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../../../src/edge/event-catalog/event-catalog.js';
import { renderBody } from '../../../src/modules/delivery/formats/formats.js';
import { escapeCefHeader, escapeCefValue, formatCef, toCefEvent } from '../../../src/modules/delivery/formats/cef.js';
import { OCSF_PRODUCT, type StoredEnvelope } from '../../../src/modules/delivery/formats/ocsf.js';
import { renderSyslog, syslogSeverity } from '../../../src/modules/delivery/formats/syslog.js';
import { escapeSdValue, octetCountingFrames } from '../../../src/modules/delivery/syslog/rfc5424.js';
import { parseSyslogUrl } from '../../../src/modules/delivery/syslog/syslog-url.js';
import { Sender } from '../../../src/modules/delivery/sender.js';
import { syslogFormat } from '../../../src/modules/delivery/syslog/syslog-format.js';
import { loadConfig } from '../../../src/config/config.js';
import { EVENT_TYPES } from '../../../src/platform/outbox/event-types.js';
import { parseCef, parseSyslogMessage, splitOctetCounted } from '../../helpers/syslog-parser.js';

const sampleOf = (type: string) => EVENT_CATALOG.find((entry) => entry.type === type)!.sample as StoredEnvelope;
const ORIGIN = { hostname: 'ugs-host', procId: '4242' };
const read = (envelope: StoredEnvelope) => {
  const message = parseSyslogMessage(renderSyslog(JSON.stringify(envelope), ORIGIN));
  return { message, cef: parseCef(message.msg) };
};

/** Every character CEF or RFC 5424 gives a meaning to, and text beyond ASCII. */
const HOSTILE = 'a|b\\c=d\ne\rf "q" ]x[ \\n \\= ünïcødé 日本 🙂 end\\';

describe('CEF escaping', () => {
  it('escapes \\ and | in header fields, and turns line breaks there into spaces', () => {
    expect(escapeCefHeader('a|b\\c')).toBe('a\\|b\\\\c');
    expect(escapeCefHeader('line\nbreak\r')).toBe('line break ');
    expect(escapeCefHeader('x=y')).toBe('x=y');
  });

  it('escapes \\, = and line breaks in extension values, and leaves | alone there', () => {
    expect(escapeCefValue('a=b\\c|d')).toBe('a\\=b\\\\c|d');
    expect(escapeCefValue('one\ntwo\r\nthree')).toBe('one\\ntwo\\r\\nthree');
    expect(escapeCefValue('tab\tnul\u0000')).toBe('tab nul ');
  });

  it('carries hostile values through a CEF line and back, unchanged (header: line breaks as spaces)', () => {
    const envelope: StoredEnvelope = {
      ...sampleOf('interaction.policy_violated'),
      data: {
        ...(sampleOf('interaction.policy_violated').data as object),
        platform_id: HOSTILE,
        user_id: `user ${HOSTILE}`,
        classifications: [{ type: `TYPE ${HOSTILE}`, value: 'secret', score: 0.9 }],
        policy_decisions: [{ policy_id: 'p=1', policy_name: HOSTILE, action: 'block' }],
      },
    };
    const cef = parseCef(formatCef(toCefEvent(envelope)));
    expect(cef.extension).toMatchObject({
      cs2: HOSTILE, suser: `user ${HOSTILE}`, cs3: `TYPE ${HOSTILE}`, cs4: 'p=1', cs5: HOSTILE, act: 'block',
    });
    // The summary names the platform: in the header, where a line break cannot be escaped.
    expect(cef.name).toContain(HOSTILE.replace(/[\r\n]/g, ' '));
    expect(cef.extension.msg).toContain(HOSTILE);
    expect(JSON.stringify(cef)).not.toContain('secret');

    const audit = sampleOf('audit.entry');
    const hostileAudit = { ...audit, data: { ...(audit.data as object), action: `auth.login_failed`, details: { reason: HOSTILE } } };
    expect(read(hostileAudit).cef.extension).toMatchObject({ reason: HOSTILE, outcome: 'failure', act: 'auth.login_failed' });
  });

  it('keeps the header at seven fields whatever the values, and every extension key a fixed name', () => {
    const policy = sampleOf('policy.created');
    const { cef } = read({ ...policy, data: { ...(policy.data as object), name: `${HOSTILE}|${HOSTILE}` } });
    expect(cef).toMatchObject({ vendor: 'UsageGovernance', product: 'ugs', productVersion: OCSF_PRODUCT.version, signatureId: 'policy.created' });
    expect(cef.extension.cs5).toBe(`${HOSTILE}|${HOSTILE}`);
    for (const key of cef.keys) expect(key).toMatch(/^(rt|externalId|cat|msg|suser|duser|act|outcome|reason|src|c6a2|cs[1-6]|cs[1-6]Label|cn1|cn1Label|c6a2Label)$/);
  });
});

describe('the CEF mapping', () => {
  it('maps every event type\'s sample: time, ids, type, tenant and summary on every line', () => {
    for (const type of EVENT_TYPES) {
      const sample = sampleOf(type);
      const { message, cef } = read(sample);
      expect(cef.signatureId, type).toBe(type);
      expect(cef.extension, type).toMatchObject({
        rt: String(Date.parse(sample.timestamp)), externalId: sample.id, cat: type, cs1Label: 'tenantId', cs1: sample.tenant_id,
      });
      expect(cef.extension.msg, type).toBe(cef.name);
      expect(message).toMatchObject({ appName: 'ugs', msgId: type, hostname: 'ugs-host', procId: '4242', timestamp: sample.timestamp });
      expect(message.structuredData, type).toEqual({ 'ugs@32473': { tenant_id: sample.tenant_id, event_id: sample.id } });
      expect(message.facility, type).toBe(type === 'audit.entry' ? 10 : 20);
      expect(message.severity, type).toBe(syslogSeverity(cef.severity));
    }
  });

  it('maps an interaction: user, strongest policy and its action, platform, types, risk', () => {
    const sample = sampleOf('interaction.policy_violated');
    const data = sample.data as Record<string, any>;
    const { cef } = read(sample);
    expect(cef.severity).toBe(9);
    expect(cef.extension).toMatchObject({
      suser: data.user_id, act: 'block', cs2Label: 'platformId', cs2: 'chatgpt', cs3Label: 'classificationTypes',
      cs3: 'CREDIT_CARD,PERSON_NAME', cs4Label: 'policyId', cs4: data.policy_decisions[0].policy_id, cs5Label: 'policyName',
      cs5: 'No payment card numbers', cs6Label: 'subjectId', cs6: data.id, cn1Label: 'riskScore', cn1: '91',
    });
    expect(read(sampleOf('interaction.created')).cef.severity).toBe(4);
  });

  it('takes an alert\'s severity from the alert, and an audit entry\'s address, actor and outcome', () => {
    expect(read(sampleOf('alert.severity_critical')).cef.severity).toBe(10);
    expect(read(sampleOf('alert.created')).cef.extension).toMatchObject({ outcome: 'open', cs5: 'No payment card numbers' });
    const resolved = read(sampleOf('alert.resolved')).cef;
    expect(resolved.extension.outcome).toBe('resolved');
    expect(resolved.extension.suser).toBe((sampleOf('alert.resolved').data as { resolved_by: string }).resolved_by);
    const audit = sampleOf('audit.entry');
    const entry = audit.data as Record<string, string>;
    expect(read(audit).cef.extension).toMatchObject({ suser: entry.actor_id, act: entry.action, src: '203.0.113.24' });
    const v6 = read({ ...audit, data: { ...entry, ip: '2001:db8::7' } }).cef.extension;
    expect(v6).toMatchObject({ c6a2Label: 'sourceIPv6Address', c6a2: '2001:db8::7' });
    expect(v6.src).toBeUndefined();
  });

  it('puts the syslog severity in PRI from the CEF severity', () => {
    expect([0, 1, 2, 3, 4, 6, 7, 8, 9, 10].map(syslogSeverity)).toEqual([6, 6, 5, 5, 4, 4, 3, 3, 2, 2]);
  });

  it('never carries a detected value: only its type', () => {
    const classified = sampleOf('interaction.classified');
    const values = ((classified.data as { classifications: Array<{ value: string }> }).classifications).map((c) => c.value);
    expect(values.length).toBeGreaterThan(0);
    const sent = renderBody('syslog', JSON.stringify(classified), { host: 'ugs.example.com' });
    for (const value of values) expect(sent).not.toContain(value);
    expect(sent).toContain('CREDIT_CARD');
  });
});

describe('RFC 5424 and RFC 5425', () => {
  it('escapes ", \\ and ] in structured data values, and a strict reader gets them back', () => {
    expect(escapeSdValue('a"b\\c]d')).toBe('a\\"b\\\\c\\]d');
    const sample = sampleOf('user.invited');
    const { message } = read({ ...sample, tenant_id: HOSTILE.replace(/[\r\n]/g, ''), id: 'evt_"]\\' });
    expect(message.structuredData['ugs@32473']).toEqual({ tenant_id: HOSTILE.replace(/[\r\n]/g, ''), event_id: 'evt_"]\\' });
  });

  it('frames a message with its length in octets, not characters', () => {
    const message = renderSyslog(JSON.stringify({ ...sampleOf('policy.created'), data: { name: 'ünï 🙂' } }), ORIGIN);
    expect(octetCountingFrames([message]).toString('utf8')).toBe(`${Buffer.byteLength(message)} ${message}`);
    expect(Buffer.byteLength(message)).toBeGreaterThan(message.length);
    expect(splitOctetCounted(octetCountingFrames([message, 'second', message]))).toEqual([message, 'second', message]);
  });

  it('is the message docs/siem.md shows for the catalog\'s alert.created', () => {
    const doc = readFileSync(new URL('../../../docs/siem.md', import.meta.url), 'utf8');
    const shown = /### The message\n\n```text\n(.*)\n```/.exec(doc)?.[1];
    expect(shown).toBe(renderSyslog(JSON.stringify(sampleOf('alert.created')), { hostname: 'ugs-worker-1', procId: '4242' }));
  });

  it('parses a stored syslog+tls URL into its host and port', () => {
    expect(parseSyslogUrl('syslog+tls://siem.example.com:6514')).toEqual({ host: 'siem.example.com', port: 6514 });
    expect(parseSyslogUrl('syslog+tls://[2001:db8::1]:514/')).toEqual({ host: '2001:db8::1', port: 514 });
    expect(() => parseSyslogUrl('syslog+tls://siem.example.com')).toThrow(/port/);
  });

  it('makes a stored syslog URL that is not one (changed behind the API\'s back) a failed attempt, not a crash', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const sender = new Sender(config);
    const transport = syslogFormat.open(config, sender);
    try {
      const outcome = await transport.sendBatch({ url: 'syslog+tls://siem.example.com/path', headers: {}, auth_token: '' }, ['x']);
      expect(outcome).toEqual({ statusCode: 0, responseTimeMs: 0, success: false, error: 'the URL must not have a path: syslog+tls://host:port' });
    } finally {
      await transport.close();
      await sender.close();
    }
  });
});
