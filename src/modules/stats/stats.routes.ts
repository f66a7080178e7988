import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { ref } from '../../kernel/schemas.js';
import { StatsQuery, StatsSchema } from './stats.schemas.js';
import { getStats } from './stats.service.js';

export const statsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/stats', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['stats'],
      operationId: 'getStats',
      summary: 'Get dashboard statistics',
      description: 'Dashboard counts: interactions by platform, source, risk band and classification type; open alerts; '
        + 'the users with the most high-risk interactions; with `interval`, interactions per hour or day.',
      querystring: StatsQuery,
      response: { 200: ref(StatsSchema) },
    },
  }, async (request) => getStats(deps, request.ctx, request.query));
};
