import { hostname } from 'node:os';
import { renderCef } from './cef.js';
import type { StoredEnvelope } from './ocsf.js';
import { FACILITY, syslogMessage } from '../syslog/rfc5424.js';

export const SYSLOG_APP_NAME = 'ugs';

/** A CEF severity (0 to 10) as a syslog severity: 9-10 critical, 7-8 error, 4-6 warning, 2-3 notice, 0-1 informational. */
export function syslogSeverity(cefSeverity: number): number {
  if (cefSeverity >= 9) return 2;
  if (cefSeverity >= 7) return 3;
  if (cefSeverity >= 4) return 4;
  if (cefSeverity >= 2) return 5;
  return 6;
}

/** Who sends: the machine's name and the process id, in every message's header. */
export interface SyslogOrigin {
  hostname: string;
  procId: string;
}

const THIS_PROCESS: SyslogOrigin = { hostname: hostname(), procId: String(process.pid) };

/**
 * The RFC 5424 message of a stored envelope (its JSON text): the CEF line as MSG, the event type
 * as MSGID, the tenant and event ids as structured data, the event's time as TIMESTAMP.
 */
export function renderSyslog(envelopeJson: string, origin: SyslogOrigin = THIS_PROCESS): string {
  const envelope = JSON.parse(envelopeJson) as StoredEnvelope;
  const cef = renderCef(envelope);
  return syslogMessage({
    facility: cef.eventType === 'audit.entry' ? FACILITY.authpriv : FACILITY.local4,
    severity: syslogSeverity(cef.severity),
    timestamp: new Date(envelope.timestamp),
    hostname: origin.hostname,
    appName: SYSLOG_APP_NAME,
    procId: origin.procId,
    msgId: cef.eventType,
    structuredData: [['tenant_id', String(envelope.tenant_id)], ['event_id', String(envelope.id)]],
  }, cef.text);
}
