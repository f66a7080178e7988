/**
 * The words of the domain that several features share: what an interaction, a policy and an
 * alert may say, and the size caps of an interaction (docs/interactions.md, "Limits").
 */
export const INTERACTION_TYPES = ['prompt', 'completion', 'tool_call', 'embedding'] as const;
export const DIRECTIONS = ['outbound', 'inbound'] as const;
export const SOURCES = ['browser_extension', 'proxy', 'endpoint_agent', 'api'] as const;
export const POLICY_ACTIONS = ['block', 'coach', 'log'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/**
 * The body formats of a webhook's deliveries (docs/siem.md): `standard`, the service's envelope;
 * `ocsf`, an OCSF 1.3 event; `splunk_hec`, Splunk HTTP Event Collector events, sent in batches;
 * `syslog`, a CEF line in an RFC 5424 message over TLS.
 */
export const WEBHOOK_FORMATS = ['standard', 'ocsf', 'splunk_hec', 'syslog'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
/** A tenant's decision on an AI platform (docs/platforms.md); a platform never decided on is `unsanctioned`. */
export const PLATFORM_STATUSES = ['sanctioned', 'unsanctioned', 'blocked'] as const;
export const DEFAULT_PLATFORM_STATUS = 'unsanctioned';
export const PLATFORM_CATEGORIES = ['assistant', 'code', 'media', 'search', 'agents', 'model_api', 'productivity'] as const;
export const RISK_TIERS = ['low', 'medium', 'high'] as const;

/** Size caps of one interaction. */
export const LIMITS = {
  classifications: 1000,
  classificationTypeLength: 100,
  classificationValueLength: 1000,
  contentMetadataBytes: 64 * 1024,
  contentMetadataDepth: 32,
  platformIdInputLength: 200,
  batchItems: 500,
  policyMessageLength: 500,
  platformNoteLength: 1000,
} as const;

export const PLATFORM_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,99}$/;
export const CONTENT_HASH_PATTERN = '^[0-9a-fA-F]{64}$';
/** Strings that PostgreSQL can store in text and jsonb: no NUL character, no lone surrogate. */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\p{Cs}]*$';
