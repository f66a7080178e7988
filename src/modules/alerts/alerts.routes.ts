import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { errorResponses, ref } from '../../kernel/schemas.js';
import { AlertListQuery, AlertListSchema, AlertParams, AlertSchema } from './alerts.schemas.js';
import { getAlert, listAlerts, resolveAlert } from './alerts.service.js';

/** Alerts are raised by interaction creates; admins and viewers read them, admins resolve them. */
export const alertsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/alerts', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['alerts'],
      operationId: 'listAlerts',
      summary: 'List alerts',
      description: "Alerts of the caller's tenant, newest first, filtered by status, severity, policy, interaction and dates.",
      querystring: AlertListQuery,
      response: { 200: ref(AlertListSchema) },
    },
  }, async (request, reply) => {
    const { body, page } = await listAlerts(deps, request.ctx, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });

  app.get('/alerts/:alert_id', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['alerts'],
      operationId: 'getAlert',
      summary: 'Get an alert',
      description: "One alert of the caller's tenant, open or resolved.",
      params: AlertParams,
      response: { 200: ref(AlertSchema) },
    },
  }, async (request) => getAlert(deps, request.ctx, request.params.alert_id));

  app.post('/alerts/:alert_id/resolve', {
    schema: {
      tags: ['alerts'],
      operationId: 'resolveAlert',
      summary: 'Resolve an alert',
      description: 'Mark an open alert resolved, by the caller; resolving it again is 409 `invalid_state`.',
      params: AlertParams,
      response: { 200: ref(AlertSchema), ...errorResponses(409) },
    },
  }, async (request) => resolveAlert(deps, request.ctx, request.params.alert_id));
};
