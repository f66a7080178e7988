import { SERVICE_VERSION } from '../../../kernel/version.js';
import { arrayOf, type Fields, isObject, isText, text } from './fields.js';

/*
 * The OCSF 1.3 event of each stored event envelope (docs/siem.md has the mapping field by field).
 * Pure functions of the envelope: the same envelope gives the same event, on every attempt,
 * redelivery and replica. They read the envelope as stored, which may come from an earlier
 * release, so every field is checked before it is used and a missing one is left out rather than
 * guessed.
 */

export const OCSF_VERSION = '1.3.0';

/** What `metadata.product` names: this service. */
export const OCSF_PRODUCT = {
  name: 'Usage-Governance Service',
  vendor_name: 'Usage-Governance',
  version: SERVICE_VERSION.replace(/^v/, ''),
} as const;

/** The envelope as stored and sent in the `standard` format. */
export interface StoredEnvelope {
  id: string;
  timestamp: string;
  event_type: string;
  tenant_id: string;
  data: unknown;
}

export type OcsfEvent = Record<string, unknown>;


/** The OCSF event of `envelope`; throws only for an envelope that is not one (no id, time or type). */
export function toOcsfEvent(envelope: StoredEnvelope): OcsfEvent {
  const { time, mapped } = mapEnvelope(envelope);
  const { event, activity } = mapped;
  const severityId = mapped.severityId;
  return compact({
    category_uid: event.category_uid,
    category_name: event.category_name,
    class_uid: event.class_uid,
    class_name: event.class_name,
    activity_id: activity.id,
    activity_name: activity.name,
    type_uid: event.class_uid * 100 + activity.id,
    type_name: `${event.class_name}: ${activity.name}`,
    time,
    timezone_offset: 0,
    severity_id: severityId,
    severity: SEVERITY_NAMES[severityId],
    message: mapped.message,
    metadata: {
      version: OCSF_VERSION,
      product: { ...OCSF_PRODUCT },
      uid: envelope.id,
      tenant_uid: envelope.tenant_id,
      event_code: envelope.event_type,
      original_time: envelope.timestamp,
    },
    ...mapped.fields,
  });
}

/** The OCSF event's `message` alone (the CEF line's summary), without assembling and compacting the event; throws as `toOcsfEvent`. */
export function ocsfMessage(envelope: StoredEnvelope): string {
  return mapEnvelope(envelope).mapped.message;
}

function mapEnvelope(envelope: StoredEnvelope): { time: number; mapped: Mapped } {
  const time = epochMs(envelope.timestamp);
  if (typeof envelope.id !== 'string' || time === undefined || typeof envelope.event_type !== 'string') {
    throw new Error('not an event envelope');
  }
  const data = isObject(envelope.data) ? envelope.data : {};
  const [family] = envelope.event_type.split('.');
  const mapped = family === 'interaction' ? interactionFinding(envelope.event_type, data)
    : family === 'alert' ? alertFinding(envelope.event_type, data)
    : family === 'policy' ? policyChange(envelope.event_type, data)
    : family === 'user' ? accountChange(envelope.event_type, data)
    : family === 'platform' ? platformDiscovery(data)
    : auditEvent(data);
  return { time, mapped };
}

// --- classes and enums of OCSF 1.3 that the mapping uses ---

interface OcsfClass {
  category_uid: number;
  category_name: string;
  class_uid: number;
  class_name: string;
}

export const OCSF_CLASSES = {
  detectionFinding: { category_uid: 2, category_name: 'Findings', class_uid: 2004, class_name: 'Detection Finding' },
  dataSecurityFinding: { category_uid: 2, category_name: 'Findings', class_uid: 2006, class_name: 'Data Security Finding' },
  accountChange: { category_uid: 3, category_name: 'Identity & Access Management', class_uid: 3001, class_name: 'Account Change' },
  authentication: { category_uid: 3, category_name: 'Identity & Access Management', class_uid: 3002, class_name: 'Authentication' },
  entityManagement: { category_uid: 3, category_name: 'Identity & Access Management', class_uid: 3004, class_name: 'Entity Management' },
  apiActivity: { category_uid: 6, category_name: 'Application Activity', class_uid: 6003, class_name: 'API Activity' },
} as const satisfies Record<string, OcsfClass>;

interface Activity {
  id: number;
  name: string;
}
const activity = (id: number, name: string): Activity => ({ id, name });
const OTHER = (name: string) => activity(99, name);

const SEVERITY_NAMES: Record<number, string> = { 1: 'Informational', 2: 'Low', 3: 'Medium', 4: 'High', 5: 'Critical' };
const ALERT_SEVERITY_IDS: Record<string, number> = { low: 2, medium: 3, high: 4, critical: 5 };

/** A risk score (0 to 1) as a severity: below 0.2 informational, then low, medium, high from 0.8, critical from 0.95. */
export function riskSeverityId(score: number): number {
  if (score >= 0.95) return 5;
  if (score >= 0.8) return 4;
  if (score >= 0.5) return 3;
  if (score >= 0.2) return 2;
  return 1;
}

const SUCCESS = { status_id: 1, status: 'Success' };
const FAILURE = { status_id: 2, status: 'Failure' };

interface Mapped {
  event: OcsfClass;
  activity: Activity;
  severityId: number;
  message: string;
  fields: Fields;
}

// --- Data Security Finding (2006): interactions and alerts ---

/** `source` of an interaction -> `data_security.detection_system_id` and its caption. */
const DETECTION_SYSTEMS: Record<string, [number, string]> = {
  browser_extension: [1, 'Endpoint'],
  endpoint_agent: [1, 'Endpoint'],
  proxy: [2, 'DLP Gateway'],
  api: [10, 'Application-Level DLP'],
};

/** Classification types -> `data_security.category_id` (data_classification's enum) and its caption. */
const DATA_CATEGORIES: Record<string, [number, string]> = {
  EMAIL: [1, 'Personal'],
  PHONE: [1, 'Personal'],
  PERSON_NAME: [1, 'Personal'],
  SSN: [1, 'Personal'],
  NIR: [1, 'Personal'],
  CREDIT_CARD: [3, 'Financial'],
  IBAN: [3, 'Financial'],
  SIRET: [4, 'Business'],
  IP_ADDRESS: [6, 'Security'],
  API_KEY: [6, 'Security'],
};

const INTERACTION_TITLES: Record<string, string> = {
  'interaction.created': 'AI interaction recorded',
  'interaction.policy_violated': 'AI interaction matched a usage policy',
  'interaction.high_risk': 'High-risk AI interaction',
  'interaction.classified': 'Sensitive data in an AI interaction validated',
};

function interactionFinding(eventType: string, data: Fields): Mapped {
  const classifications = arrayOf(data.classifications).filter(isObject);
  const types = unique(classifications.map((c) => c.type).filter(isText));
  const decisions = arrayOf(data.policy_decisions).filter(isObject);
  const strongest = decisions[0];
  const score = typeof data.risk_score === 'number' ? data.risk_score : 0;
  const platform = text(data.platform_id);
  const [systemId, systemName] = DETECTION_SYSTEMS[text(data.source) ?? ''] ?? [99, text(data.source) ?? 'Other'];
  const category = dataCategory(classifications);
  const title = INTERACTION_TITLES[eventType] ?? 'AI interaction';
  const id = text(data.id) ?? 'unknown';
  return {
    event: OCSF_CLASSES.dataSecurityFinding,
    activity: activity(1, 'Create'),
    severityId: riskSeverityId(score),
    message: `${title}${platform ? ` on ${platform}` : ''}${types.length > 0 ? `: ${types.join(', ')}` : ''}`,
    fields: {
      finding_info: compact({
        uid: id,
        title,
        created_time: epochMs(data.timestamp),
        types: types.length > 0 ? types : undefined,
      }),
      data_security: compact({
        category_id: category?.[0],
        category: category?.[1],
        detection_system_id: systemId,
        detection_system: systemName,
        detection_pattern: types.length > 0 ? types.join(', ') : undefined,
        policy: strongest ? policyObject(strongest.policy_id, strongest.policy_name) : undefined,
      }),
      actor: isText(data.user_id) ? { user: { uid: data.user_id } } : undefined,
      resources: [compact({
        uid: id,
        type: 'AI interaction',
        name: platform,
        data: compact({
          content_hash: text(data.content_hash),
          interaction_type: text(data.interaction_type),
          direction: text(data.direction),
          source: text(data.source),
          policy_actions: decisions.length > 0 ? decisions.map((d) => text(d.action)).filter(isText) : undefined,
        }),
      })],
      risk_score: Math.round(score * 100),
    },
  };
}

/** The category of the most confident classification whose type has one. */
function dataCategory(classifications: Fields[]): [number, string] | undefined {
  const ranked = classifications
    .filter((c) => isText(c.type) && DATA_CATEGORIES[c.type])
    .sort((a, b) => (Number(b.score) || 0) - (Number(a.score) || 0));
  const best = ranked[0];
  return best ? DATA_CATEGORIES[best.type as string] : undefined;
}

function alertFinding(eventType: string, data: Fields): Mapped {
  const resolved = eventType === 'alert.resolved' || data.status === 'resolved';
  const policyName = text(data.policy_name);
  const title = `Usage policy ${policyName ? `"${policyName}" ` : ''}matched an AI interaction`;
  return {
    event: OCSF_CLASSES.dataSecurityFinding,
    activity: resolved ? activity(3, 'Close') : activity(1, 'Create'),
    severityId: ALERT_SEVERITY_IDS[text(data.severity) ?? ''] ?? 3,
    message: resolved ? `Alert resolved: ${title}` : `Alert raised: ${title}`,
    fields: {
      status_id: resolved ? 4 : 1,
      status: resolved ? 'Resolved' : 'New',
      finding_info: compact({
        uid: text(data.id) ?? 'unknown',
        title,
        created_time: epochMs(data.created_at),
        modified_time: resolved ? epochMs(data.resolved_at) : undefined,
        types: ['AI usage policy violation'],
      }),
      data_security: { policy: policyObject(data.policy_id, data.policy_name) },
      actor: resolved && isText(data.resolved_by) ? { user: { uid: data.resolved_by } } : undefined,
      resources: isText(data.interaction_id) ? [{ uid: data.interaction_id, type: 'AI interaction' }] : undefined,
    },
  };
}

function policyObject(uid: unknown, name: unknown): Fields {
  return compact({ uid: text(uid) ?? 'unknown', name: text(name) });
}

// --- Detection Finding (2004): a platform discovered ---

/**
 * A tenant's first use of an AI platform is what a CASB reports as a shadow-IT detection: informational
 * for a platform of the catalog, low for one the catalog lacks (the case to review).
 */
function platformDiscovery(data: Fields): Mapped {
  const platform = text(data.platform_id) ?? 'unknown';
  const inCatalog = data.catalog !== false;
  const firstSeen = epochMs(data.first_seen);
  return {
    event: OCSF_CLASSES.detectionFinding,
    activity: activity(1, 'Create'),
    severityId: inCatalog ? 1 : 2,
    message: `AI platform discovered: ${platform}${inCatalog ? '' : ' (not in the catalog)'}`,
    fields: {
      status_id: 1,
      status: 'New',
      finding_info: compact({
        uid: platform,
        title: 'AI platform discovered',
        created_time: firstSeen,
        first_seen_time: firstSeen,
        types: ['Shadow AI discovery'],
      }),
      resources: [compact({ uid: platform, type: 'AI platform', labels: inCatalog ? ['catalog'] : ['not in catalog'] })],
      evidences: isText(data.user_id) ? [{ actor: { user: { uid: data.user_id } } }] : undefined,
    },
  };
}

// --- Entity Management (3004): policy changes ---

const POLICY_ACTIVITIES: Record<string, Activity> = {
  'policy.created': activity(1, 'Create'),
  'policy.updated': activity(3, 'Update'),
  'policy.deleted': activity(4, 'Delete'),
  'policy.enabled': activity(8, 'Enable'),
  'policy.disabled': activity(9, 'Disable'),
};

function policyChange(eventType: string, data: Fields): Mapped {
  const change = POLICY_ACTIVITIES[eventType] ?? OTHER(eventType);
  const name = text(data.name);
  return {
    event: OCSF_CLASSES.entityManagement,
    activity: change,
    severityId: 1,
    message: `Usage policy ${name ? `"${name}" ` : ''}${PAST_TENSES[change.name] ?? 'changed'}`,
    fields: {
      ...SUCCESS,
      entity: compact({
        uid: text(data.id) ?? 'unknown',
        name,
        type: 'Policy',
        type_id: 5,
        data: eventType === 'policy.deleted' ? undefined : compact({
          description: text(data.description),
          action: text(data.action),
          severity: text(data.severity),
          enabled: typeof data.enabled === 'boolean' ? data.enabled : undefined,
          conditions: isObject(data.conditions) ? data.conditions : undefined,
        }),
      }),
    },
  };
}

const PAST_TENSES: Record<string, string> = {
  Create: 'created', Update: 'updated', Delete: 'deleted', Enable: 'enabled', Disable: 'disabled',
};

// --- Account Change (3001): user events ---

const USER_ACTIVITIES: Record<string, Activity> = {
  'user.invited': activity(1, 'Create'),
  'user.activated': activity(2, 'Enable'),
  // Account Change has no activity for a role change: 99, named.
  'user.role_changed': OTHER('Role Change'),
  'user.deleted': activity(6, 'Delete'),
};

function accountChange(eventType: string, data: Fields): Mapped {
  const change = USER_ACTIVITIES[eventType] ?? OTHER(eventType);
  const email = text(data.email);
  return {
    event: OCSF_CLASSES.accountChange,
    activity: change,
    severityId: 1,
    message: `User ${email ?? text(data.id) ?? ''}: ${change.name}`,
    fields: {
      ...SUCCESS,
      user: userObject(data),
    },
  };
}

const USER_TYPES: Record<string, [number, string]> = { admin: [2, 'Admin'], viewer: [1, 'User'] };

function userObject(data: Fields): Fields {
  const [typeId, type] = USER_TYPES[text(data.role) ?? ''] ?? [undefined, undefined];
  return compact({
    uid: text(data.id) ?? 'unknown',
    name: text(data.email),
    email_addr: text(data.email),
    full_name: text(data.display_name),
    type_id: typeId,
    type,
  });
}

// --- audit.entry: Authentication (3002), Account Change (3001), API Activity (6003) ---

function auditEvent(entry: Fields): Mapped {
  const action = text(entry.action) ?? 'unknown';
  const unmapped = compact({
    action,
    actor_type: text(entry.actor_type),
    target_type: text(entry.target_type),
    target_id: text(entry.target_id),
    details: isObject(entry.details) && Object.keys(entry.details).length > 0 ? entry.details : undefined,
  });
  const endpoint = isText(entry.ip) ? { ip: entry.ip } : undefined;
  const request = isText(entry.request_id) ? { uid: entry.request_id } : undefined;
  if (action.startsWith('auth.')) return authenticationEvent(action, entry, endpoint, unmapped);
  if (action.startsWith('user.')) return accountAuditEvent(action, entry, endpoint, unmapped);
  const change = apiActivityOf(action);
  return {
    event: OCSF_CLASSES.apiActivity,
    activity: change,
    severityId: 1,
    message: `${action} by ${text(entry.actor_label) ?? text(entry.actor_type) ?? 'unknown'}`,
    fields: {
      ...SUCCESS,
      actor: actorOf(entry),
      api: compact({ operation: action, request }),
      // The entry of a background job has no client address: the service is its own source.
      src_endpoint: endpoint ?? { svc_name: OCSF_PRODUCT.name },
      resources: isText(entry.target_id) ? [compact({ uid: entry.target_id, type: text(entry.target_type) })] : undefined,
      unmapped,
    },
  };
}

/** An audited action's verb (its last word) as an API Activity. */
function apiActivityOf(action: string): Activity {
  const verb = action.split('.').at(-1) ?? '';
  if (/^(created|invited)$/.test(verb)) return activity(1, 'Create');
  if (/^(exported|looked_up|read)$/.test(verb)) return activity(2, 'Read');
  if (/^(updated|enabled|disabled|resolved|applied|secret_rotated|redelivery_requested|changed)$/.test(verb)) {
    return activity(3, 'Update');
  }
  if (/^(deleted|revoked|erased)$/.test(verb)) return activity(4, 'Delete');
  return OTHER(action);
}

const FAILED_LOGINS = new Set(['auth.login_failed', 'auth.login_refused', 'auth.sso_refused']);

function authenticationEvent(action: string, entry: Fields, endpoint: Fields | undefined, unmapped: Fields): Mapped {
  const failed = FAILED_LOGINS.has(action);
  const details = isObject(entry.details) ? entry.details : {};
  const reason = text(details.reason);
  const viaSso = details.via === 'sso' || action === 'auth.sso_refused';
  // The entry's target is the account signing in; a refused single sign-on may name none.
  const user = entry.target_type === 'user' && isText(entry.target_id)
    ? compact({ uid: entry.target_id, name: text(entry.actor_label) })
    : { name: text(details.email) ?? 'unknown' };
  return {
    event: OCSF_CLASSES.authentication,
    activity: action === 'auth.logout' ? activity(2, 'Logoff') : activity(1, 'Logon'),
    severityId: failed ? 2 : 1,
    message: `${failed ? 'Failed sign-in' : 'Sign-in'}${isText(user.name) ? ` of ${user.name}` : ''}${reason ? ` (${reason})` : ''}`,
    fields: {
      ...(failed ? FAILURE : SUCCESS),
      status_detail: reason,
      user,
      auth_protocol_id: viaSso ? 4 : undefined,
      auth_protocol: viaSso ? 'OpenID' : undefined,
      src_endpoint: endpoint,
      unmapped,
    },
  };
}

function accountAuditEvent(action: string, entry: Fields, endpoint: Fields | undefined, unmapped: Fields): Mapped {
  const details = isObject(entry.details) ? entry.details : {};
  const change = accountActivityOf(action, details);
  const email = text(details.email);
  return {
    event: OCSF_CLASSES.accountChange,
    activity: change,
    severityId: 1,
    message: `User ${email ?? text(entry.target_id) ?? ''}: ${change.name}, by ${text(entry.actor_label) ?? text(entry.actor_type) ?? 'unknown'}`,
    fields: {
      ...SUCCESS,
      user: compact({ uid: text(entry.target_id) ?? 'unknown', name: email, email_addr: email }),
      actor: actorOf(entry),
      src_endpoint: endpoint,
      unmapped,
    },
  };
}

function accountActivityOf(action: string, details: Fields): Activity {
  switch (action) {
    case 'user.created':
    case 'user.invited':
      return activity(1, 'Create');
    case 'user.invitation_accepted':
      return activity(2, 'Enable');
    case 'user.password_reset':
      return activity(4, 'Password Reset');
    case 'user.deleted':
      return activity(6, 'Delete');
    case 'user.status_changed':
      if (details.to === 'active') return activity(2, 'Enable');
      if (details.to === 'inactive') return activity(5, 'Disable');
      return OTHER('Status Change');
    case 'user.role_changed':
      return OTHER('Role Change');
    default:
      return OTHER(action);
  }
}

/** Who did it: a user, an API key (as an application), or the service itself. */
function actorOf(entry: Fields): Fields {
  const label = text(entry.actor_label);
  const id = text(entry.actor_id);
  if (entry.actor_type === 'user' && (id || label)) return { user: compact({ uid: id, name: label }) };
  if (entry.actor_type === 'api_key' && (id || label)) return compact({ app_uid: id, app_name: label });
  return { app_name: label ? `${OCSF_PRODUCT.name} (${label})` : OCSF_PRODUCT.name };
}

// --- small helpers ---

function epochMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** The object without its undefined members: OCSF leaves an unknown attribute out rather than null. */
function compact<T extends Fields>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}
