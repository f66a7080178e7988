import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { setPageHeaders, toPage } from '../../kernel/paging/pagination.js';
import { ref } from '../../kernel/schemas.js';
import { listAudit } from './audit.repo.js';
import { AuditLogSchema, AuditQuery } from './audit.schemas.js';

export const auditRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/audit-log', {
    schema: {
      tags: ['audit'],
      operationId: 'listAuditLog',
      summary: 'List the audit log',
      description: 'The audit log of administrative changes and logins, newest first.',
      querystring: AuditQuery,
      response: { 200: ref(AuditLogSchema) },
    },
  }, async (request, reply) => {
    const { body, page } = await listAudit(await deps.store.reader(), request.ctx.tenantId, request.query, toPage(request.query));
    setPageHeaders(reply, page, body.total);
    return body;
  });
};
