import type { components } from '@sdk/generated/openapi.js';

export type Policy = components['schemas']['Policy'];
export type PolicyCreate = components['schemas']['PolicyCreate'];
export type PolicyConditions = components['schemas']['PolicyConditions'];
export type PolicyDryRun = components['schemas']['PolicyDryRun'];
export type Action = Policy['action'];
export type Severity = Policy['severity'];
type Direction = NonNullable<PolicyConditions['directions']>[number];
type Source = NonNullable<PolicyConditions['sources']>[number];
type InteractionType = NonNullable<PolicyConditions['interaction_types']>[number];
type PlatformStatus = NonNullable<PolicyConditions['platform_statuses']>[number];

export const ACTIONS: { value: Action; label: string; hint: string }[] = [
  { value: 'block', label: 'Block', hint: 'the interaction is refused; an alert is raised' },
  { value: 'coach', label: 'Coach', hint: 'the user is warned; an alert is raised' },
  { value: 'log', label: 'Log', hint: 'recorded only, no alert' },
];
export const SEVERITIES: Severity[] = ['low', 'medium', 'high', 'critical'];
export const DIRECTIONS: { value: Direction; label: string }[] = [
  { value: 'outbound', label: 'Outbound (sent to the AI)' },
  { value: 'inbound', label: 'Inbound (received from the AI)' },
];
export const SOURCES: { value: Source; label: string }[] = [
  { value: 'browser_extension', label: 'Browser extension' },
  { value: 'proxy', label: 'Proxy' },
  { value: 'endpoint_agent', label: 'Endpoint agent' },
  { value: 'api', label: 'API' },
];
export const INTERACTION_TYPES: { value: InteractionType; label: string }[] = [
  { value: 'prompt', label: 'Prompt' },
  { value: 'completion', label: 'Completion' },
  { value: 'tool_call', label: 'Tool call' },
  { value: 'embedding', label: 'Embedding' },
];
export const PLATFORM_STATUSES: { value: PlatformStatus; label: string }[] = [
  { value: 'sanctioned', label: 'Sanctioned apps' },
  { value: 'unsanctioned', label: 'Unsanctioned apps (every app not decided on)' },
  { value: 'blocked', label: 'Blocked apps' },
];
/** The classification types the service knows; the list is open, others go in "Other types". */
export const KNOWN_CLASSIFICATIONS = [
  'EMAIL', 'PHONE', 'CREDIT_CARD', 'IBAN', 'SSN', 'NIR', 'SIRET', 'IP_ADDRESS', 'API_KEY', 'PERSON_NAME',
] as const;

/** What the form edits: text as typed, so a half-typed value is never lost or rewritten. */
export interface PolicyFormState {
  name: string;
  description: string;
  action: Action;
  severity: Severity;
  enabled: boolean;
  platformIds: string;
  classificationTypes: string[];
  otherClassificationTypes: string;
  minRiskScore: string;
  directions: Direction[];
  sources: Source[];
  interactionTypes: InteractionType[];
  validatedOnly: boolean;
  platformStatuses: PlatformStatus[];
  message: string;
}

export const EMPTY_FORM: PolicyFormState = {
  name: '', description: '', action: 'block', severity: 'medium', enabled: true,
  platformIds: '', classificationTypes: [], otherClassificationTypes: '', minRiskScore: '',
  directions: [], sources: [], interactionTypes: [], validatedOnly: false, platformStatuses: [], message: '',
};

const splitList = (text: string) => text.split(',').map((item) => item.trim()).filter((item) => item !== '');
const isKnown = (type: string) => (KNOWN_CLASSIFICATIONS as readonly string[]).includes(type);

export function formFromPolicy(policy: Policy): PolicyFormState {
  const c = policy.conditions;
  const types = c.classification_types ?? [];
  return {
    name: policy.name,
    description: policy.description,
    action: policy.action,
    severity: policy.severity,
    enabled: policy.enabled,
    platformIds: (c.platform_ids ?? []).join(', '),
    classificationTypes: types.filter(isKnown),
    otherClassificationTypes: types.filter((type) => !isKnown(type)).join(', '),
    minRiskScore: c.min_risk_score === undefined ? '' : String(c.min_risk_score),
    directions: c.directions ?? [],
    sources: c.sources ?? [],
    interactionTypes: c.interaction_types ?? [],
    validatedOnly: c.validated_only ?? false,
    platformStatuses: c.platform_statuses ?? [],
    message: policy.message ?? '',
  };
}

/**
 * The create (and dry-run) body. An empty list is left out rather than sent empty: the API
 * refuses empty lists, and a condition left out matches everything, which is what "none ticked"
 * means. The values are sent as typed; the API validates them and its sentence is shown.
 */
export function bodyFromForm(form: PolicyFormState): PolicyCreate {
  const conditions: PolicyConditions = {};
  const platformIds = splitList(form.platformIds);
  const types = [...form.classificationTypes, ...splitList(form.otherClassificationTypes)];
  if (platformIds.length > 0) conditions.platform_ids = platformIds;
  if (types.length > 0) conditions.classification_types = [...new Set(types)];
  if (form.minRiskScore.trim() !== '') conditions.min_risk_score = Number(form.minRiskScore);
  if (form.directions.length > 0) conditions.directions = form.directions;
  if (form.sources.length > 0) conditions.sources = form.sources;
  if (form.interactionTypes.length > 0) conditions.interaction_types = form.interactionTypes;
  if (form.validatedOnly) conditions.validated_only = true;
  if (form.platformStatuses.length > 0) conditions.platform_statuses = form.platformStatuses;
  return {
    name: form.name,
    description: form.description,
    action: form.action,
    severity: form.severity,
    enabled: form.enabled,
    conditions,
    // Empty: no message (a create refuses an empty one; a save sends null to remove it).
    ...(form.message.trim() === '' ? {} : { message: form.message }),
  };
}

const labelOf = (options: { value: string; label: string }[], value: string) =>
  options.find((option) => option.value === value)?.label ?? value;

/** One line per condition, in words, for the list; no condition matches every interaction. */
export function conditionsSummary(c: Policy['conditions']): string[] {
  const lines: string[] = [];
  if (c.platform_ids) lines.push(`Platform: ${c.platform_ids.join(', ')}`);
  if (c.platform_statuses) lines.push(`Apps: ${c.platform_statuses.join(', ')}`);
  if (c.classification_types) lines.push(`Data: ${c.classification_types.join(', ')}`);
  if (c.validated_only) lines.push(c.classification_types ? 'Validated detections only' : 'Any validated detection');
  if (c.min_risk_score !== undefined) lines.push(`Risk ≥ ${c.min_risk_score}`);
  if (c.directions) lines.push(`Direction: ${c.directions.map((d) => labelOf(DIRECTIONS, d).split(' ')[0]).join(', ')}`);
  if (c.sources) lines.push(`Source: ${c.sources.map((s) => labelOf(SOURCES, s)).join(', ')}`);
  if (c.interaction_types) lines.push(`Type: ${c.interaction_types.map((t) => labelOf(INTERACTION_TYPES, t)).join(', ')}`);
  return lines.length > 0 ? lines : ['Every interaction (no condition)'];
}

export const actionTone = (action: Action) => (action === 'block' ? 'bad' : action === 'coach' ? 'warn' : 'info');
export const severityTone = (severity: Severity) =>
  severity === 'critical' || severity === 'high' ? 'bad' : severity === 'medium' ? 'warn' : 'neutral';
