import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { setPageHeaders, toPage } from '../../lib/pagination.js';
import { errorResponses } from '../../lib/schemas.js';
import { AlertListQuery, AlertListSchema, AlertParams, AlertSchema } from './alerts.schemas.js';
import { getAlert, listAlerts, resolveAlert } from './alerts.service.js';

/** Alerts are raised by interaction creates; admins and viewers read them, admins resolve them. */
export const alertsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/alerts', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['alerts'],
      summary: 'List alerts, newest first',
      querystring: AlertListQuery,
      response: { 200: AlertListSchema, ...errorResponses(400, 401, 403) },
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
      summary: 'Read an alert',
      params: AlertParams,
      response: { 200: AlertSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getAlert(deps, request.ctx, request.params.alert_id));

  app.post('/alerts/:alert_id/resolve', {
    schema: {
      tags: ['alerts'],
      summary: 'Resolve an open alert',
      params: AlertParams,
      response: { 200: AlertSchema, ...errorResponses(401, 403, 404, 409) },
    },
  }, async (request) => resolveAlert(deps, request.ctx, request.params.alert_id));
};
