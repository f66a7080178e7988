import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { setPageHeaders, toPage } from '../../lib/pagination.js';
import { errorResponses, NoContent } from '../../lib/schemas.js';
import { Sender } from '../delivery/sender.js';
import { deliveryHistory, redeliver, testWebhook } from './webhook-deliveries.service.js';
import {
  CreatedWebhookSchema, CreateWebhookBody, DeliveriesQuery, DeliveryList, DeliveryParams, ListWebhooksQuery,
  RedeliveryAccepted, RotatedSecret, TestResult, TestWebhookBody, UpdateWebhookBody, WebhookList, WebhookParams,
  WebhookSchema,
} from './webhooks.schemas.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateSigningSecret, updateWebhook } from './webhooks.service.js';

/** Webhook configuration, tests and delivery history: admins only (routes without `access`). */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const sender = new Sender(deps.config);
  app.addHook('onClose', () => sender.close());
  const tags = ['webhooks'];

  app.post('/webhooks', {
    schema: {
      tags,
      summary: 'Register a receiver; the signing secret is returned only here',
      body: CreateWebhookBody,
      response: { 201: CreatedWebhookSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => reply.code(201).send(await createWebhook(deps, request.ctx, request.body)));

  app.get('/webhooks', {
    schema: {
      tags,
      summary: 'List webhooks, newest first',
      querystring: ListWebhooksQuery,
      response: { 200: WebhookList, ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { body, page } = await listWebhooks(deps, request.ctx, { active: request.query.active }, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.get('/webhooks/:webhook_id', {
    schema: {
      tags,
      summary: 'Read a webhook (never its secrets)',
      params: WebhookParams,
      response: { 200: WebhookSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getWebhook(deps, request.ctx, request.params.webhook_id));

  app.put('/webhooks/:webhook_id', {
    schema: {
      tags,
      summary: 'Change a webhook; `active: true` resumes deliveries of new events',
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => updateWebhook(deps, request.ctx, request.params.webhook_id, request.body));

  app.delete('/webhooks/:webhook_id', {
    schema: {
      tags,
      summary: 'Delete a webhook, its queued deliveries and its history',
      params: WebhookParams,
      response: { 204: NoContent, ...errorResponses(401, 403, 404) },
    },
  }, async (request, reply) => {
    await deleteWebhook(deps, request.ctx, request.params.webhook_id);
    return reply.code(204).send(null);
  });

  app.post('/webhooks/:webhook_id/test', {
    schema: {
      tags,
      summary: 'Send one sample event of the given type now and report the outcome',
      params: WebhookParams,
      body: TestWebhookBody,
      response: { 200: TestResult, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request) => testWebhook(deps, sender, request.ctx, request.params.webhook_id, request.body.event_type));

  app.get('/webhooks/:webhook_id/deliveries', {
    schema: {
      tags,
      summary: 'The delivery history (every attempt), newest first',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveryList, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (request, reply) => {
    const { body, page } = await deliveryHistory(deps, request.ctx, request.params.webhook_id, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.post('/webhooks/:webhook_id/rotate-secret', {
    schema: {
      tags,
      summary: 'Issue a new signing secret (returned once); the old one also signs for 24 hours',
      params: WebhookParams,
      response: { 200: RotatedSecret, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => rotateSigningSecret(deps, request.ctx, request.params.webhook_id));

  app.post('/webhooks/:webhook_id/deliveries/:delivery_id/redeliver', {
    schema: {
      tags,
      summary: 'Send the event of a past delivery again, now, as a new chain of attempts',
      params: DeliveryParams,
      response: { 202: RedeliveryAccepted, ...errorResponses(401, 403, 404, 409) },
    },
  }, async (request, reply) =>
    reply.code(202).send(await redeliver(deps, request.ctx, request.params.webhook_id, request.params.delivery_id)));
};
