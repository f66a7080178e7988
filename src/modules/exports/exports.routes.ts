import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { errorResponses, StringEnum } from '../../lib/schemas.js';
import { AuditFilterFields } from '../audit/audit.schemas.js';
import { ListInteractionsQuery } from '../interactions/interactions.schemas.js';
import { CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from './export-format.js';
import { type Export, exportAuditLog, exportInteractions } from './exports.service.js';

const Format = { format: Type.Optional(StringEnum(EXPORT_FORMATS, { default: 'csv', description: 'csv (with a header row) or ndjson' })) };
const InteractionsExportQuery = Type.Object({ ...Type.Omit(ListInteractionsQuery, ['page', 'limit', 'cursor']).properties, ...Format });
const AuditExportQuery = Type.Object({ ...AuditFilterFields, ...Format });

const FILE = (what: string) => ({
  description: `${what}, streamed as a file`,
  content: {
    [CONTENT_TYPES.csv]: { schema: { type: 'string' } },
    [CONTENT_TYPES.ndjson]: { schema: { type: 'string' } },
  },
});

function sendFile(reply: FastifyReply, format: ExportFormat, file: Export) {
  return reply
    .header('Content-Type', CONTENT_TYPES[format])
    .header('Content-Disposition', `attachment; filename="${file.fileName}"`)
    .header('Cache-Control', 'no-store')
    .send(file.body);
}

/** Streamed exports for auditors and SIEMs: interactions (readers), the audit log (admins). */
export const exportsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/interactions/export', {
    config: { access: { roles: ['admin', 'viewer'], scopes: ['interactions:read'] } },
    schema: {
      tags: ['interactions'],
      summary: "Every interaction the list's filters select, in its order, as CSV or NDJSON (streamed; audited)",
      querystring: InteractionsExportQuery,
      response: { 200: FILE('The interactions'), ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { format = 'csv', ...filters } = request.query;
    return sendFile(reply, format, await exportInteractions(deps, request.ctx, format, filters));
  });

  app.get('/audit-log/export', {
    schema: {
      tags: ['audit'],
      summary: 'The audit entries the filters select, newest first, as CSV or NDJSON (streamed; audited)',
      querystring: AuditExportQuery,
      response: { 200: FILE('The audit entries'), ...errorResponses(400, 401, 403) },
    },
  }, async (request, reply) => {
    const { format = 'csv', ...filters } = request.query;
    return sendFile(reply, format, await exportAuditLog(deps, request.ctx, format, filters));
  });
};
