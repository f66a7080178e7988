import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { errorResponses, NoContent, ref } from '../../kernel/schemas.js';
import { Transports } from '../delivery/batched-formats.js';
import { deliveryHistory, formatSample, redeliver, type SampleEvent, testWebhook } from './webhook-deliveries.service.js';
import {
  CreatedWebhookSchema, CreateWebhookBody, DeliveriesQuery, DeliveryList, DeliveryParams, FormatSample, FormatSampleParams,
  FormatSampleQuery, ListWebhooksQuery, RedeliveryAccepted, RotatedSecret, TestResult, TestWebhookBody, UpdateWebhookBody,
  WebhookList, WebhookParams, WebhookSchema,
} from './webhooks.schemas.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateSigningSecret, updateWebhook } from './webhooks.service.js';

/** Webhook configuration, tests and delivery history: admins only (routes without `access`). */
/** `sampleEvent` comes from the event catalog: a test send delivers the catalog's sample. */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ deps: Deps; sampleEvent: SampleEvent }> = async (app, { deps, sampleEvent }) => {
  const transports = new Transports(deps.config);
  app.addHook('onClose', () => transports.close());
  const tags = ['webhooks'];

  app.post('/webhooks', {
    schema: {
      tags,
      operationId: 'createWebhook',
      summary: 'Create a webhook',
      description: 'Register a receiver; the signing secret is returned only here.',
      body: ref(CreateWebhookBody),
      response: { 201: ref(CreatedWebhookSchema) },
    },
  }, async (request, reply) => reply.code(201).send(await createWebhook(deps, request.ctx, request.body)));

  app.get('/webhooks', {
    schema: {
      tags,
      operationId: 'listWebhooks',
      summary: 'List webhooks',
      description: "Webhooks of the caller's tenant, newest first, with their queue and delivery figures; never their secrets.",
      querystring: ListWebhooksQuery,
      response: { 200: ref(WebhookList) },
    },
  }, async (request, reply) => {
    const { body, page } = await listWebhooks(deps, request.ctx, { active: request.query.active }, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.get('/webhooks/:webhook_id', {
    schema: {
      tags,
      operationId: 'getWebhook',
      summary: 'Get a webhook',
      description: 'Read a webhook (never its secrets)',
      params: WebhookParams,
      response: { 200: ref(WebhookSchema) },
    },
  }, async (request) => getWebhook(deps, request.ctx, request.params.webhook_id));

  app.put('/webhooks/:webhook_id', {
    schema: {
      tags,
      operationId: 'updateWebhook',
      summary: 'Update a webhook',
      description: 'Change a webhook; `active: true` resumes deliveries of new events.',
      params: WebhookParams,
      body: ref(UpdateWebhookBody),
      response: { 200: ref(WebhookSchema) },
    },
  }, async (request) => updateWebhook(deps, request.ctx, request.params.webhook_id, request.body));

  app.delete('/webhooks/:webhook_id', {
    schema: {
      tags,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook',
      description: 'Delete a webhook, its queued deliveries and its history.',
      params: WebhookParams,
      response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await deleteWebhook(deps, request.ctx, request.params.webhook_id);
    return reply.code(204).send(null);
  });

  app.post('/webhooks/:webhook_id/test', {
    schema: {
      tags,
      operationId: 'testWebhook',
      summary: 'Test a webhook',
      description: 'Send one sample event of the given type now and report the outcome.',
      params: WebhookParams,
      body: ref(TestWebhookBody),
      response: { 200: ref(TestResult) },
    },
  }, async (request) => testWebhook(deps, transports, sampleEvent, request.ctx, request.params.webhook_id, request.body.event_type));

  app.get('/webhooks/formats/:format/sample', {
    schema: {
      tags,
      operationId: 'getWebhookFormatSample',
      summary: 'Preview a delivery format',
      description: 'The exact body a receiver of this format gets for the sample event of a type (default '
        + '`interaction.created`), rendered as deliveries are. Nothing is sent.',
      params: FormatSampleParams,
      querystring: FormatSampleQuery,
      response: { 200: ref(FormatSample) },
    },
  }, async (request) =>
    formatSample(deps, sampleEvent, request.ctx, request.params.format, request.query.event_type ?? 'interaction.created'));

  app.get('/webhooks/:webhook_id/deliveries', {
    schema: {
      tags,
      operationId: 'listWebhookDeliveries',
      summary: "List a webhook's deliveries",
      description: 'The delivery history (every attempt), newest first.',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: ref(DeliveryList) },
    },
  }, async (request, reply) => {
    const { body, page } = await deliveryHistory(deps, request.ctx, request.params.webhook_id, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.post('/webhooks/:webhook_id/rotate-secret', {
    schema: {
      tags,
      operationId: 'rotateWebhookSecret',
      summary: "Rotate a webhook's signing secret",
      description: 'Issue a new signing secret (returned once); the old one also signs for 24 hours.',
      params: WebhookParams,
      response: { 200: ref(RotatedSecret) },
    },
  }, async (request) => rotateSigningSecret(deps, request.ctx, request.params.webhook_id));

  app.post('/webhooks/:webhook_id/deliveries/:delivery_id/redeliver', {
    schema: {
      tags,
      operationId: 'redeliverWebhookDelivery',
      summary: 'Redeliver a past delivery',
      description: 'Send the event of a past delivery again, now, as a new chain of attempts.',
      params: DeliveryParams,
      response: { 202: ref(RedeliveryAccepted), ...errorResponses(409) },
    },
  }, async (request, reply) =>
    reply.code(202).send(await redeliver(deps, request.ctx, request.params.webhook_id, request.params.delivery_id)));
};
