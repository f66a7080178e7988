import { type Static, Type } from 'typebox';
import { NextCursor, PageQuery } from '../../lib/pagination.js';
import { Nullable, StringEnum } from '../../lib/schemas.js';
import { EVENT_TYPES } from '../events/catalog.js';

export const EventTypeSchema = StringEnum(EVENT_TYPES);

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An https:// URL whose host resolves only to public addresses' });
const Events = Type.Array(EventTypeSchema, { minItems: 1, maxItems: 100, description: 'Subscribed event types (at least one)' });
const Description = Type.String({ maxLength: 1000 });
const Headers = Type.Record(Type.String(), Type.String({ maxLength: 2000 }), {
  maxProperties: 30,
  description: 'Custom headers sent with each delivery; they may not replace the service\'s own headers',
});
const AuthToken = Type.String({ maxLength: 2000, description: 'Sent as `Authorization: Bearer <auth_token>`; empty: none' });

export const CreateWebhookBody = Type.Object({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
  active: Type.Optional(Type.Boolean()),
  headers: Type.Optional(Headers),
  auth_token: Type.Optional(AuthToken),
});
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

/** Every field of a create, each optional. */
export const UpdateWebhookBody = Type.Partial(CreateWebhookBody);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

/** A webhook as reads return it: never its secrets, only whether a bearer token is set. */
export const WebhookSchema = Type.Object({
  id: Type.String({ description: 'Prefix `whk_`' }),
  url: Type.String(),
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
});
export type WebhookResponse = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Intersect([
  WebhookSchema,
  Type.Object({ signing_secret: Type.String({ description: 'Prefix `whsec_`; returned only here and by rotate-secret' }) }),
]);

export const WebhookParams = Type.Object({ webhook_id: Type.String({ maxLength: 100 }) });
export const DeliveryParams = Type.Object({
  webhook_id: Type.String({ maxLength: 100 }),
  delivery_id: Type.String({ maxLength: 100 }),
});

export const ListWebhooksQuery = Type.Object({ ...PageQuery, active: Type.Optional(Type.Boolean()) });
export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookSchema), total: Type.Integer(), next_cursor: NextCursor });

export const DeliveryRecordSchema = Type.Object({
  id: Type.String({ description: 'Prefix `dlv_`; also the `X-Service-Delivery` header of the attempt' }),
  timestamp: Type.String({ format: 'date-time' }),
  event_type: Type.String(),
  event_id: Type.String(),
  attempt: Type.Integer({ description: 'Attempt number within its chain (1 to 5 by default)' }),
  test: Type.Boolean({ description: 'Made by the test operation' }),
  status_code: Type.Integer({ description: 'HTTP status of the answer; 0 when none came' }),
  response_time_ms: Type.Integer(),
  success: Type.Boolean(),
  error: Type.Optional(Type.String({ description: 'Present on failed attempts' })),
});
export type DeliveryRecordResponse = Static<typeof DeliveryRecordSchema>;

export const DeliveriesQuery = Type.Object(PageQuery);
export const DeliveryList = Type.Object({ deliveries: Type.Array(DeliveryRecordSchema), total: Type.Integer(), next_cursor: NextCursor });

export const TestWebhookBody = Type.Object({ event_type: EventTypeSchema });
export const TestResult = Type.Object({
  delivered: Type.Boolean(),
  status_code: Type.Integer(),
  response_time_ms: Type.Integer(),
  timestamp: Type.String({ format: 'date-time' }),
  delivery_id: Type.String(),
  error: Type.Optional(Type.String()),
});

export const RotatedSecret = Type.Object({
  id: Type.String(),
  signing_secret: Type.String({ description: 'The new secret; returned only here' }),
  previous_secret_expires_at: Type.String({
    format: 'date-time',
    description: 'Until then the previous secret also signs each delivery (in `webhook-signature`)',
  }),
});

export const RedeliveryAccepted = Type.Object({
  webhook_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  redelivery_of: Type.String({ description: 'The delivery record that was redelivered' }),
  queued_at: Type.String({ format: 'date-time' }),
});
