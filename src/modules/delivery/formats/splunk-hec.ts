/*
 * Splunk HTTP Event Collector's event of each stored envelope (docs/siem.md): the envelope itself
 * is HEC's `event`, as stored (the bytes a `standard` webhook gets), wrapped with HEC's metadata.
 */

/** HEC's `source` of every event: this service. */
export const HEC_SOURCE = 'ugs';

/** `ugs:<event_type>`: one sourcetype per event type, all matched by `ugs:*`. */
export const hecSourcetype = (eventType: string) => `${HEC_SOURCE}:${eventType}`;

/**
 * `{"time", "host", "source", "sourcetype", "event"}` with `time` the envelope's `timestamp` in
 * epoch seconds (milliseconds as decimals). Throws for a text that is not an envelope.
 */
export function toHecEvent(envelopeJson: string, host: string): string {
  const envelope = JSON.parse(envelopeJson) as { timestamp?: unknown; event_type?: unknown };
  const ms = typeof envelope.timestamp === 'string' ? Date.parse(envelope.timestamp) : Number.NaN;
  if (!Number.isFinite(ms) || typeof envelope.event_type !== 'string') throw new Error('not an event envelope');
  // The envelope's own bytes as `event`: nothing re-serialised, so HEC indexes what a standard webhook gets.
  return `{"time":${ms / 1000},"host":${JSON.stringify(host)},"source":"${HEC_SOURCE}",`
    + `"sourcetype":${JSON.stringify(hecSourcetype(envelope.event_type))},"event":${envelopeJson.trim()}}`;
}
