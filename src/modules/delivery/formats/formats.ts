import type { Config } from '../../../config/config.js';
import type { WebhookFormat } from '../../../kernel/vocabulary.js';
import { type StoredEnvelope, toOcsfEvent } from './ocsf.js';
import { toHecEvent } from './splunk-hec.js';
import { renderSyslog } from './syslog.js';

/** What a body may name of the service besides the event: the host name HEC events carry. */
export interface RenderContext {
  host: string;
}

/** The service's host name as receivers should see it: that of `PUBLIC_BASE_URL`, the same on every replica. */
export function renderContext(config: Readonly<Config>): RenderContext {
  return { host: new URL(config.server.publicBaseUrl).hostname };
}

/**
 * The body a webhook of `format` is sent for a stored envelope (its JSON text): `standard`, those
 * very bytes; `ocsf`, the envelope's OCSF event; `splunk_hec`, its HEC event (one of a batch's
 * bodies); `syslog`, an RFC 5424 message whose text is the envelope's CEF line (unframed: the
 * transport frames it). Every header, signatures included, is computed over what this returns.
 * A value this release does not know is sent as `standard`.
 */
export function renderBody(format: string, envelopeJson: string, context: RenderContext): string {
  switch (format as WebhookFormat) {
    case 'ocsf': return JSON.stringify(toOcsfEvent(JSON.parse(envelopeJson) as StoredEnvelope));
    case 'splunk_hec': return toHecEvent(envelopeJson, context.host);
    case 'syslog': return renderSyslog(envelopeJson);
    default: return envelopeJson;
  }
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
export function renderBodyOrFail(format: string, envelopeJson: string, context: RenderContext): string {
  try {
    return renderBody(format, envelopeJson, context);
  } catch (error) {
    throw new RenderError(format, error);
  }
}
