import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { ref } from '../../kernel/schemas.js';
import { PeopleRiskListSchema, PeopleRiskQuery } from './people.schemas.js';
import { peopleAtRisk } from './people.service.js';

/** The people whose use of AI platforms carries the most risk: admins and viewers read it. */
export const peopleRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/people/risk', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags: ['people'],
      operationId: 'listPeopleAtRisk',
      summary: 'Rank people by risk',
      description: 'The `user_id`s of the period\'s interactions (members or not) with a score above zero, highest first: '
        + '`score = high_risk + 2 x violations + 5 x sensitive_types + 10 x unsanctioned_platforms`, with each figure. '
        + '`start_date`, `end_date`: inclusive, optional (none: the whole history); any length (closed days are read '
        + 'from daily roll-ups). Paginated like every list.',
      querystring: PeopleRiskQuery,
      response: { 200: ref(PeopleRiskListSchema) },
    },
  }, async (request, reply) => {
    const { body, page } = await peopleAtRisk(deps, request.ctx, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });
};
