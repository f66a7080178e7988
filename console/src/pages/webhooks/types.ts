import type { components } from '@sdk/generated/openapi.js';

export type Webhook = components['schemas']['Webhook'];
export type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
export type WebhookCreate = components['schemas']['WebhookCreate'];
export type WebhookUpdate = components['schemas']['WebhookUpdate'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type EventType = WebhookCreate['events'][number];
