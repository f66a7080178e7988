import { type RenderContext, renderBodyOrFail } from './formats/formats.js';
import type { Transports } from './batched-formats.js';
import { type AttemptOutcome, renderFailure, sendInFormat } from './sender.js';
import { type DeliveryMessage, type DeliveryTarget, deliveryHeaders } from './signing.js';

/**
 * One event sent now in its webhook's format: for a batched format, a batch of one over its
 * transport; for the others, one POST with the signed headers.
 */
export async function sendEvent(
  transports: Transports, webhook: DeliveryTarget & { url: string; format: string }, envelopeJson: string,
  message: Omit<DeliveryMessage, 'body'>, context: RenderContext,
): Promise<AttemptOutcome> {
  const transport = transports.batch(webhook.format);
  if (!transport) {
    return sendInFormat(transports.sender, webhook.format, envelopeJson, (body) => ({
      url: webhook.url, headers: deliveryHeaders(webhook, { ...message, body }),
    }), context);
  }
  let body: string;
  try {
    body = renderBodyOrFail(webhook.format, envelopeJson, context);
  } catch (error) {
    return renderFailure(error);
  }
  return transport.sendBatch(webhook, [body]);
}
