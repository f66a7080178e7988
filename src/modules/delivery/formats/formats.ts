import type { WebhookFormat } from '../../../kernel/vocabulary.js';
import { type StoredEnvelope, toOcsfEvent } from './ocsf.js';
import { renderSyslog } from './syslog.js';

/**
 * The body a webhook of `format` is sent for a stored envelope (its JSON text): `standard`, those
 * very bytes; `ocsf`, the envelope's OCSF event; `syslog`, an RFC 5424 message whose text is the
 * envelope's CEF line (unframed: the transport frames it). Every header, signatures included, is computed
 * over what this returns. A value this release does not know is sent as `standard`.
 */
export function renderBody(format: string, envelopeJson: string): string {
  if ((format as WebhookFormat) === 'ocsf') return JSON.stringify(toOcsfEvent(JSON.parse(envelopeJson) as StoredEnvelope));
  if ((format as WebhookFormat) === 'syslog') return renderSyslog(envelopeJson);
  return envelopeJson;
}

/** An attempt whose body could not be made: recorded as failed (never sent), so that it is retried and visible. */
export class RenderError extends Error {
  constructor(format: string, cause: unknown) {
    // A JSON parser's message quotes the text it read: never a piece of an event in the history.
    const reason = cause instanceof SyntaxError ? 'the stored event is not JSON' : cause instanceof Error ? cause.message : 'unknown';
    super(`the event could not be written in the ${format} format: ${reason}`);
  }
}

/** `renderBody`, its failure as a `RenderError`. */
export function renderBodyOrFail(format: string, envelopeJson: string): string {
  try {
    return renderBody(format, envelopeJson);
  } catch (error) {
    throw new RenderError(format, error);
  }
}
