import type { Webhook } from './types.js';

export type WebhookFormat = Webhook['format'];

/** How the console names each delivery format, and what it is for. */
export const WEBHOOK_FORMATS: ReadonlyArray<{ value: WebhookFormat; label: string; hint: string }> = [
  { value: 'standard', label: 'Standard', hint: "The service's event envelope as JSON" },
  { value: 'ocsf', label: 'OCSF 1.3', hint: 'Each event as an OCSF 1.3 event, for a SIEM (Splunk, Sentinel, Elastic, QRadar)' },
  {
    value: 'splunk_hec', label: 'Splunk HEC',
    hint: "Splunk HTTP Event Collector: the URL of its /services/collector/event endpoint and its token; events are sent in batches of up to 100",
  },
  { value: 'syslog', label: 'Syslog (CEF)', hint: 'Each event as a CEF line in an RFC 5424 syslog message over TLS, to syslog+tls://host:port' },
];

export const formatLabel = (format: WebhookFormat) => WEBHOOK_FORMATS.find((f) => f.value === format)?.label ?? format;

/** Formats whose receiver needs a token (sent as `Authorization: Splunk <token>`). */
export const needsToken = (format: WebhookFormat) => format === 'splunk_hec';
