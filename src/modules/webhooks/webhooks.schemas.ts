import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, Nullable, ref, StringEnum } from '../../kernel/schemas.js';
import { EVENT_TYPES } from '../../platform/outbox/event-types.js';
import { WEBHOOK_FORMATS } from '../../kernel/vocabulary.js';

export const EventTypeSchema = StringEnum(EVENT_TYPES);

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An https:// URL (for the syslog format, syslog+tls://host:port) whose host resolves only to public addresses' });
const FormatDescription = 'The body of each delivery: `standard`, the service\'s event envelope; `ocsf`, the event as an OCSF 1.3 '
  + 'event; `splunk_hec`, Splunk HTTP Event Collector events, several per request, with `auth_token` (required) as '
  + '`Authorization: Splunk <token>`; `syslog`, each event as a CEF line in an RFC 5424 message over TLS to a '
  + '`syslog+tls://host:port` URL (no signature, headers or auth_token) (docs/siem.md). `standard` and `ocsf` are signed';
export const WebhookFormatSchema = StringEnum(WEBHOOK_FORMATS, { description: FormatDescription });
const Events = Type.Array(EventTypeSchema, { minItems: 1, maxItems: 100, description: 'Subscribed event types (at least one)' });
const Description = Type.String({ maxLength: 1000 });
const Headers = Type.Record(Type.String(), Type.String({ maxLength: 2000 }), {
  maxProperties: 30,
  description: 'Custom headers sent with each delivery; they may not replace the service\'s own headers',
});
const AuthToken = Type.String({
  maxLength: 2000,
  description: 'Sent as `Authorization: Bearer <auth_token>` (`Splunk <auth_token>` for `splunk_hec`, which requires one); empty: none',
});

const WebhookInputFields = {
  url: Url,
  format: Type.Optional(StringEnum(WEBHOOK_FORMATS, { description: `${FormatDescription}. A create without it: \`standard\`` })),
  events: Events,
  description: Type.Optional(Description),
  active: Type.Optional(Type.Boolean()),
  headers: Type.Optional(Headers),
  auth_token: Type.Optional(AuthToken),
};
export const CreateWebhookBody = component('WebhookCreate', Type.Object(WebhookInputFields), {
  description: 'A new webhook: where to send which events.',
  example: {
    url: 'https://siem.example.com/hooks/ai-usage', format: 'ocsf', events: ['alert.created', 'interaction.policy_violated'],
    description: 'SIEM intake', headers: { 'X-Source': 'ugs' }, auth_token: 's3cr3t-bearer',
  },
});
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

/** Every field of a create, each optional. */
export const UpdateWebhookBody = component('WebhookUpdate', Type.Partial(Type.Object(WebhookInputFields)), {
  description: 'A change of a webhook: fields left out keep their value; `active: true` resumes deliveries of new events.',
  example: { active: true, events: ['alert.created'], format: 'ocsf' },
});
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

/** A webhook as reads return it: never its secrets, only whether a bearer token is set. */
const WebhookFields = {
  id: Type.String({ description: 'Prefix `whk_`' }),
  url: Type.String(),
  format: WebhookFormatSchema,
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  description: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  has_auth_token: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_delivery: Nullable(Type.String({ format: 'date-time', description: 'Time of the latest attempt' })),
  delivery_count: Type.Integer({ description: 'Attempts made so far (the history keeps WEBHOOK_HISTORY_RETENTION_DAYS of them)' }),
  queued: Type.Integer({ description: 'Events waiting to be delivered (or being delivered) to this webhook' }),
  oldest_queued_at: Nullable(Type.String({ format: 'date-time', description: 'When the oldest of them was queued; null when none' })),
};
const webhookExample = {
  id: EXAMPLE_IDS.webhook, url: 'https://siem.example.com/hooks/ai-usage', format: 'ocsf' as const,
  events: ['alert.created', 'interaction.policy_violated'],
  active: true, description: 'SIEM intake', headers: { 'X-Source': 'ugs' }, has_auth_token: true,
  created_at: '2026-02-10T12:00:00.000Z', updated_at: '2026-02-10T12:00:00.000Z', last_delivery: '2026-03-02T09:15:28.120Z',
  delivery_count: 42, queued: 0, oldest_queued_at: null,
};
export const WebhookSchema = component('Webhook', Type.Object(WebhookFields), {
  description: 'A receiver of signed event notifications (Standard Webhooks). Its secrets are never shown again.',
  example: webhookExample,
});
export type WebhookResponse = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = component('WebhookWithSecret', Type.Object({
  ...WebhookFields,
  signing_secret: Type.String({ description: 'Prefix `whsec_`; returned only here and by rotate-secret' }),
}), {
  description: 'A new webhook with its signing secret, which only this response (and rotate-secret) shows.',
  example: { ...webhookExample, last_delivery: null, delivery_count: 0, signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
});

export const WebhookParams = Type.Object({ webhook_id: Type.String({ maxLength: 100 }) });
export const DeliveryParams = Type.Object({
  webhook_id: Type.String({ maxLength: 100 }),
  delivery_id: Type.String({ maxLength: 100 }),
});

export const ListWebhooksQuery = Type.Object({ ...PageQuery, active: Type.Optional(Type.Boolean()) });
export const WebhookList = component('WebhookList', Type.Object({
  webhooks: Type.Array(ref(WebhookSchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of webhooks.', example: { webhooks: [webhookExample], total: 1, next_cursor: null } });

export const DeliveryRecordSchema = component('WebhookDelivery', Type.Object({
  id: Type.String({ description: 'Prefix `dlv_`; also the `X-Service-Delivery` header of the attempt' }),
  timestamp: Type.String({ format: 'date-time' }),
  event_type: Type.String(),
  event_id: Type.String(),
  attempt: Type.Integer({ description: 'Attempt number within its chain (1 to 5 by default)' }),
  test: Type.Boolean({ description: 'Made by the test operation' }),
  format: StringEnum(WEBHOOK_FORMATS, { description: 'The body format the attempt was sent in: its webhook\'s format at that moment' }),
  status_code: Type.Integer({ description: 'HTTP status of the answer; 0 when none came' }),
  response_time_ms: Type.Integer(),
  success: Type.Boolean(),
  error: Type.Optional(Type.String({ description: 'Present on failed attempts' })),
}), {
  description: 'One attempt to deliver an event to a webhook.',
  example: {
    id: EXAMPLE_IDS.delivery, timestamp: '2026-03-02T09:15:28.120Z', event_type: 'alert.created', event_id: EXAMPLE_IDS.event,
    attempt: 1, test: false, format: 'ocsf', status_code: 200, response_time_ms: 87, success: true,
  },
});
export type DeliveryRecordResponse = Static<typeof DeliveryRecordSchema>;

export const DeliveriesQuery = Type.Object(PageQuery);
export const DeliveryList = component('WebhookDeliveryList', Type.Object({
  deliveries: Type.Array(ref(DeliveryRecordSchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of delivery attempts.', example: { deliveries: [DeliveryRecordSchema.examples[0]], total: 1, next_cursor: null } });

export const TestWebhookBody = component('WebhookTest', Type.Object({ event_type: EventTypeSchema }), {
  description: 'Which sample event to send.', example: { event_type: 'alert.created' },
});
export const TestResult = component('WebhookTestResult', Type.Object({
  delivered: Type.Boolean(),
  status_code: Type.Integer(),
  response_time_ms: Type.Integer(),
  timestamp: Type.String({ format: 'date-time' }),
  delivery_id: Type.String(),
  error: Type.Optional(Type.String()),
}), {
  description: 'The outcome of a test delivery (also kept in the delivery history).',
  example: { delivered: true, status_code: 200, response_time_ms: 91, timestamp: '2026-03-02T09:20:00.000Z', delivery_id: EXAMPLE_IDS.delivery },
});

export const FormatSampleParams = Type.Object({ format: WebhookFormatSchema });
export const FormatSampleQuery = Type.Object({
  event_type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'The sample event to render (default `interaction.created`)' })),
});
export const FormatSample = component('WebhookFormatSample', Type.Object({
  format: WebhookFormatSchema,
  event_type: EventTypeSchema,
  body: Type.String({ description: 'The body of a delivery of this one event, exactly as sent (JSON text)' }),
}), {
  description: "A delivery format's body for a sample event: what a receiver of that format gets.",
  example: {
    format: 'splunk_hec', event_type: 'audit.entry',
    body: '{"time":1772443200.123,"host":"ugs.example.com","source":"ugs","sourcetype":"ugs:audit.entry","event":{"id":"evt_…",'
      + '"timestamp":"2026-03-02T09:20:00.123Z","event_type":"audit.entry","tenant_id":"…","data":{…}}}',
  },
});

export const RotatedSecret = component('WebhookSecret', Type.Object({
  id: Type.String(),
  signing_secret: Type.String({ description: 'The new secret; returned only here' }),
  previous_secret_expires_at: Type.String({
    format: 'date-time',
    description: 'Until then the previous secret also signs each delivery (in `webhook-signature`)',
  }),
}), {
  description: 'A new signing secret, shown only here.',
  example: { id: EXAMPLE_IDS.webhook, signing_secret: 'whsec_C2FtcGxlLXNlY3JldC1mb3ItZG9jcw', previous_secret_expires_at: '2026-03-03T09:20:00.000Z' },
});

export const RedeliveryAccepted = component('WebhookRedelivery', Type.Object({
  webhook_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  redelivery_of: Type.String({ description: 'The delivery record that was redelivered' }),
  queued_at: Type.String({ format: 'date-time' }),
}), {
  description: 'A redelivery queued: the event is sent again as a new chain of attempts.',
  example: {
    webhook_id: EXAMPLE_IDS.webhook, event_id: EXAMPLE_IDS.event, event_type: 'alert.created', redelivery_of: EXAMPLE_IDS.delivery,
    queued_at: '2026-03-02T09:30:00.000Z',
  },
});
