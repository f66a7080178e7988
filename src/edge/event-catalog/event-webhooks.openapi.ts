import type { OpenAPIV3_1 } from 'openapi-types';
import { serviceSignature, standardSignature } from '../../modules/delivery/signing.js';
import { EVENT_CATALOG, type EventCatalogEntry } from './event-catalog.js';
import { EXAMPLE_SEED } from './event-samples.js';
import { EVENT_DATA_SCHEMAS, envelopeSchema, eventOperationId, eventSchemaName } from './event-schemas.js';

/*
 * The OpenAPI 3.1 `webhooks` section: one operation per event type, describing the request the
 * service sends to a receiver. Built from the event catalog, so it lists exactly what
 * `GET /api/v1/event-types` lists.
 */

/** The secret the documented example signatures are computed with (a Standard Webhooks example secret). */
const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const EXAMPLE_DELIVERY_ID = 'dlv_01935c1e8e3b7c02b1a4d5e6f7a8b9c0';
type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** The plain JSON of a TypeBox schema (a copy the document may keep). */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Json;

export interface WebhooksSection {
  webhooks: NonNullable<OpenAPIV3_1.Document['webhooks']>;
  schemas: NonNullable<NonNullable<OpenAPIV3_1.Document['components']>['schemas']>;
}

/** `webhooks` and the `components.schemas` its operations refer to. */
export function eventWebhooksSection(): WebhooksSection {
  const schemas: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(EVENT_DATA_SCHEMAS)) {
    const example = EVENT_CATALOG.find((entry) => entry.dataName === name)!.sample.data;
    schemas[name] = { ...plain(schema), examples: [example] };
  }
  const webhooks: Record<string, Json> = {};
  for (const entry of EVENT_CATALOG) {
    const name = eventSchemaName(entry.type);
    schemas[name] = { ...plain(envelopeSchema(entry.type, ref(entry.dataName), entry.description)), examples: [entry.sample] };
    webhooks[entry.type] = { post: operationOf(entry, name) };
  }
  // Plain JSON checked by the document's validation and lint tests, not by openapi-types' typings.
  return { webhooks, schemas } as unknown as WebhooksSection;
}

function operationOf(entry: EventCatalogEntry, schemaName: string): Json {
  const body = JSON.stringify(entry.sample);
  return {
    operationId: eventOperationId(entry.type),
    summary: `${entry.type} event`,
    description: `${entry.description}\n\n${DELIVERY_RULES}`,
    security: [],
    parameters: deliveryHeaders(entry, body),
    requestBody: {
      required: true,
      description: 'The event envelope, signed as sent: verify the signatures over these exact bytes before parsing them. '
        + 'A webhook whose `format` is `ocsf` receives the same event as an OCSF 1.3 event instead, signed the same way (docs/siem.md).',
      content: { 'application/json': { schema: ref(schemaName), example: entry.sample } },
    },
    responses: {
      '2XX': { description: 'Accepted: any 2xx answer within the timeout (5 s by default) completes the delivery; the body is ignored.' },
      '401': {
        description: 'The signature does not verify (or the timestamp is stale): the receiver refuses the request. '
          + 'Like any answer other than 2xx, it counts as a failed attempt and is retried.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['error'],
              properties: { error: { type: 'string', description: 'Why the request was refused' } },
              description: 'The receiver\'s refusal',
            },
            example: { error: 'invalid signature' },
          },
        },
      },
    },
  };
}

const DELIVERY_RULES = 'Delivered by POST, at least once: the same event may arrive more than once (deduplicate on '
  + '`webhook-id`, the event id) and events may arrive out of order. An answer other than 2xx, or none within the '
  + 'timeout, is retried (5 attempts by default: immediately, then after 5 s, 30 s, 5 min and 30 min); after the last '
  + 'failed attempt the webhook is disabled and the admin who created it (or every admin) is emailed. When the webhook has an `auth_token`, the '
  + 'request also carries `Authorization: Bearer <auth_token>`, and any custom `headers` it was given. New fields may '
  + 'be added to events at any time: ignore those you do not know.';

function deliveryHeaders(entry: EventCatalogEntry, body: string): Json[] {
  const timestamp = Math.floor(EXAMPLE_SEED.now.getTime() / 1000);
  const header = (name: string, schema: Json, description: string, example: string): Json =>
    ({ name, in: 'header', required: true, description, schema, example });
  return [
    header('X-Service-Signature', { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      '`sha256=` and the hex HMAC-SHA256 of the raw request body, keyed with the whole signing secret string '
      + '(`whsec_...`, as returned at creation). Verify it like GitHub\'s: compute the same HMAC over the bytes '
      + 'received (not re-serialised JSON) and compare in constant time. Always made with the newest secret. '
      + `The example is computed over the example body with the secret \`${EXAMPLE_SECRET}\`.`,
      serviceSignature(EXAMPLE_SECRET, body)),
    header('X-Service-Event', { type: 'string', enum: [entry.type] },
      'The event type (`event_type` of the body).', entry.type),
    header('X-Service-Event-Id', { type: 'string', pattern: '^evt_' },
      'The event id (`id` of the body): the same on every attempt and redelivery of the event.', entry.sample.id),
    header('X-Service-Delivery', { type: 'string', pattern: '^dlv_' },
      'The id of this attempt, as the webhook\'s delivery history lists it (`GET /webhooks/{id}/deliveries`).',
      EXAMPLE_DELIVERY_ID),
    header('webhook-id', { type: 'string', pattern: '^evt_' },
      'Standard Webhooks message id: the event id. Deduplicate on it.', entry.sample.id),
    header('webhook-timestamp', { type: 'string', pattern: '^[0-9]+$' },
      'Standard Webhooks timestamp: the attempt\'s time in seconds since the Unix epoch. Refuse a request whose '
      + 'timestamp is too far from your clock (Standard Webhooks libraries allow 5 minutes): that stops replays.',
      String(timestamp)),
    header('webhook-signature', { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
      'Standard Webhooks signatures, separated by spaces: `v1,` and the base64 HMAC-SHA256 of '
      + '`{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of the secret after '
      + '`whsec_`. Accept the request when any of them matches (constant-time compare): for 24 hours after a secret '
      + 'rotation the previous secret signs too. Any Standard Webhooks library verifies it '
      + '(`new Webhook(secret).verify(body, headers)`), the timestamp included. '
      + `The example is computed with the secret \`${EXAMPLE_SECRET}\`.`,
      standardSignature(EXAMPLE_SECRET, entry.sample.id, timestamp, body)),
  ];
}
