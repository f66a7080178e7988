import { isIP } from 'node:net';
import { OCSF_PRODUCT, ocsfMessage, type StoredEnvelope } from './ocsf.js';
import { arrayOf, type Fields, isObject, isText, text } from './fields.js';

/*
 * The ArcSight Common Event Format (CEF 0) line of each stored event envelope, the message of a
 * `syslog` webhook (docs/siem.md has the mapping). Like the OCSF mapping, a pure function of the
 * envelope: every attempt of an event sends the same line. Detected values never appear: only
 * their types.
 */

export const CEF_VENDOR = 'UsageGovernance';
export const CEF_PRODUCT = 'ugs';
/** CEF limits the Name header field to 512 characters. */
const MAX_NAME_LENGTH = 512;

export interface CefEvent {
  /** Device Event Class ID: the event type. */
  signatureId: string;
  /** Name: one line for people (the OCSF event's `message`). */
  name: string;
  /** 0 (lowest) to 10 (highest). */
  severity: number;
  /** Extension keys, in order, each with its value as text. */
  extension: Array<[string, string]>;
}


/** The CEF event of `envelope`; throws only for an envelope that is not one (no id, time or type). */
export function toCefEvent(envelope: StoredEnvelope): CefEvent {
  // The OCSF mapping checks the envelope and words the summary: one wording for both formats.
  const summary = ocsfMessage(envelope);
  const data = isObject(envelope.data) ? envelope.data : {};
  const [family] = envelope.event_type.split('.');
  const mapped = family === 'interaction' ? interactionFields(data)
    : family === 'alert' ? alertFields(envelope.event_type, data)
    : family === 'policy' ? policyFields(data)
    : family === 'user' ? userFields(data)
    : family === 'platform' ? platformFields(data)
    : auditFields(data);
  const extension: Array<[string, string]> = [
    ['rt', String(Date.parse(envelope.timestamp))],
    ['externalId', envelope.id],
    ['cat', envelope.event_type],
    ['msg', summary],
    ['cs1Label', 'tenantId'],
    ['cs1', envelope.tenant_id],
  ];
  for (const [key, value] of mapped.extension) {
    if (value === undefined || value === '') continue;
    // A custom field's label goes just before it, as CEF readers expect.
    const label = CUSTOM_LABELS[key];
    if (label) extension.push([`${key}Label`, label]);
    extension.push([key, value]);
  }
  return { signatureId: envelope.event_type, name: summary, severity: mapped.severity, extension };
}

/** The CEF text: `CEF:0|vendor|product|version|class id|name|severity|extension`. */
export function formatCef(event: CefEvent): string {
  const header = [CEF_VENDOR, CEF_PRODUCT, OCSF_PRODUCT.version, event.signatureId, truncate(event.name, MAX_NAME_LENGTH), String(event.severity)]
    .map(escapeCefHeader);
  const extension = event.extension.map(([key, value]) => `${key}=${escapeCefValue(value)}`).join(' ');
  return `CEF:0|${header.join('|')}|${extension}`;
}

/** The CEF line of a stored envelope (parsed from its JSON text). */
export function renderCef(envelope: StoredEnvelope): { text: string; severity: number; eventType: string } {
  const event = toCefEvent(envelope);
  return { text: formatCef(event), severity: event.severity, eventType: envelope.event_type };
}

/**
 * A header field: `\` and `|` escaped with a backslash. A header cannot hold a line break (CEF
 * has no escape for one there): line breaks and other control characters become spaces.
 */
export function escapeCefHeader(value: string): string {
  return withoutControls(value, true).replace(/[\\|]/g, (c) => `\\${c}`);
}

/**
 * An extension value: `\` and `=` escaped with a backslash, line breaks written `\n` and `\r`
 * (a `|` needs no escape there). Other control characters become spaces.
 */
export function escapeCefValue(value: string): string {
  return withoutControls(value, false).replace(/[\\=\n\r]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\${c}`));
}

const CONTROLS = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/g;
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f]/g;

function withoutControls(value: string, breaksToo: boolean): string {
  return value.replace(breaksToo ? CONTROLS_AND_BREAKS : CONTROLS, ' ');
}

/** The labels of the custom fields (`csN` and `cnN`), the same for every event type. */
const CUSTOM_LABELS: Record<string, string> = {
  cs2: 'platformId',
  cs3: 'classificationTypes',
  cs4: 'policyId',
  cs5: 'policyName',
  cs6: 'subjectId',
  cn1: 'riskScore',
  c6a2: 'sourceIPv6Address',
};

interface Mapped {
  severity: number;
  extension: Array<[string, string | undefined]>;
}

// --- per event family ---

function interactionFields(data: Fields): Mapped {
  const types = [...new Set(arrayOf(data.classifications).filter(isObject).map((c) => c.type).filter(isText))];
  const strongest = arrayOf(data.policy_decisions).filter(isObject)[0];
  const score = typeof data.risk_score === 'number' && Number.isFinite(data.risk_score) ? data.risk_score : 0;
  return {
    severity: riskSeverity(score),
    extension: [
      ['suser', text(data.user_id)],
      ['act', text(strongest?.action)],
      ['cs2', text(data.platform_id)],
      ['cs3', types.length > 0 ? types.join(',') : undefined],
      ['cs4', text(strongest?.policy_id)],
      ['cs5', text(strongest?.policy_name)],
      ['cs6', text(data.id)],
      ['cn1', String(Math.round(score * 100))],
    ],
  };
}

const ALERT_SEVERITIES: Record<string, number> = { low: 3, medium: 5, high: 8, critical: 10 };

function alertFields(eventType: string, data: Fields): Mapped {
  const resolved = eventType === 'alert.resolved' || data.status === 'resolved';
  return {
    severity: ALERT_SEVERITIES[text(data.severity) ?? ''] ?? 5,
    extension: [
      ['suser', resolved ? text(data.resolved_by) : undefined],
      ['outcome', resolved ? 'resolved' : 'open'],
      ['cs4', text(data.policy_id)],
      ['cs5', text(data.policy_name)],
      ['cs6', text(data.id)],
    ],
  };
}

function policyFields(data: Fields): Mapped {
  return {
    severity: 1,
    extension: [
      ['act', text(data.action)],
      ['cs4', text(data.id)],
      ['cs5', text(data.name)],
    ],
  };
}

function userFields(data: Fields): Mapped {
  return {
    severity: 1,
    extension: [
      ['duser', text(data.id)],
      ['cs6', text(data.id)],
    ],
  };
}

function platformFields(data: Fields): Mapped {
  return {
    // A platform the catalog lacks is the one to review first.
    severity: data.catalog === false ? 3 : 1,
    extension: [
      ['suser', text(data.user_id)],
      ['cs2', text(data.platform_id)],
      ['cs6', text(data.platform_id)],
    ],
  };
}

const FAILED_LOGINS = new Set(['auth.login_failed', 'auth.login_refused', 'auth.sso_refused']);

function auditFields(entry: Fields): Mapped {
  const action = text(entry.action);
  const details = isObject(entry.details) ? entry.details : {};
  const failed = action !== undefined && FAILED_LOGINS.has(action);
  const ip = text(entry.ip);
  const family = ip ? isIP(ip) : 0;
  return {
    severity: failed ? 3 : 1,
    extension: [
      ['suser', entry.actor_type === 'user' ? text(entry.actor_id) : undefined],
      ['duser', entry.target_type === 'user' ? text(entry.target_id) : undefined],
      ['act', action],
      ['outcome', action?.startsWith('auth.') ? (failed ? 'failure' : 'success') : undefined],
      ['reason', text(details.reason)],
      // CEF's `src` is an IPv4 address; an IPv6 one has a field of its own.
      ['src', family === 4 ? ip : undefined],
      ['c6a2', family === 6 ? ip : undefined],
      ['cs6', text(entry.target_id)],
    ],
  };
}

/** A risk score (0 to 1) on CEF's scale: `round(score * 10)`, within 0 to 10. */
export function riskSeverity(score: number): number {
  return Math.min(10, Math.max(0, Math.round(score * 10)));
}

// --- small helpers ---

function truncate(value: string, max: number): string {
  const chars = [...value];
  return chars.length <= max ? value : `${chars.slice(0, max - 1).join('')}…`;
}

