import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { NextCursor, PageQuery, setPageHeaders, toPage } from '../../lib/pagination.js';
import { errorResponses } from '../../lib/schemas.js';
import { listAudit } from './audit.repo.js';
import { AuditEntrySchema } from './audit.schemas.js';

const AuditQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  start_date: Type.Optional(Type.String({ format: 'date-time' })),
  end_date: Type.Optional(Type.String({ format: 'date-time' })),
});


export const auditRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/audit-log', {
    schema: {
      tags: ['audit'],
      summary: 'The audit log of administrative changes and logins, newest first',
      querystring: AuditQuery,
      response: {
        200: Type.Object({ entries: Type.Array(AuditEntrySchema), total: Type.Integer(), next_cursor: NextCursor }),
        ...errorResponses(400, 401, 403),
      },
    },
  }, async (request, reply) => {
    const { body, page } = await listAudit(deps.store.db, request.ctx.tenantId, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });
};
