import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponses } from '../../lib/schemas.js';
import { StatsQuery, StatsSchema } from './stats.schemas.js';
import { getStats } from './stats.service.js';

export const statsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/stats', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['stats'],
      summary: 'Dashboard counts: interactions by platform, source, risk band and classification type; open alerts',
      querystring: StatsQuery,
      response: { 200: StatsSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => getStats(deps, request.ctx, request.query));
};
