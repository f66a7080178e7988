import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../platform/deps.js';
import { StringEnum } from '../../kernel/schemas.js';
import { AuditFilterFields } from '../audit/audit.schemas.js';
import { ListInteractionsQuery } from '../interactions/interactions.schemas.js';
import { CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from './export-format.js';
import { type Export, exportAuditLog, exportInteractions } from './exports.service.js';

const Format = { format: Type.Optional(StringEnum(EXPORT_FORMATS, { default: 'csv', description: 'csv (with a header row) or ndjson' })) };
// Unknown parameters are dropped (removeAdditional), not passed on: the filters are written to the export's audit entry.
const KNOWN_ONLY = { additionalProperties: false } as const;
const InteractionsExportQuery = Type.Object({ ...Type.Omit(ListInteractionsQuery, ['page', 'limit', 'cursor']).properties, ...Format }, KNOWN_ONLY);
const AuditExportQuery = Type.Object({ ...AuditFilterFields, ...Format }, KNOWN_ONLY);

const FILE = (what: string, example: { csv: string; ndjson: string }) => ({
  description: `${what}, streamed as a file`,
  content: {
    [CONTENT_TYPES.csv]: { schema: { type: 'string', description: 'CSV with a header row' }, example: example.csv },
    [CONTENT_TYPES.ndjson]: { schema: { type: 'string', description: 'One JSON object per line' }, example: example.ndjson },
  },
});

const INTERACTIONS_EXAMPLE = {
  csv: 'id,timestamp,platform_id,content_hash,interaction_type,direction,source,user_id,risk_score,classification_types,'
    + 'classifications,policy_decisions,content_metadata\n0195b1d4-2e33-7f10-a1b2-3c4d5e6f7a04,2026-03-02T09:15:27.482Z,chatgpt,'
    + '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,prompt,outbound,browser_extension,,0.91,CREDIT_CARD,'
    + '"[{""type"":""CREDIT_CARD"",""value"":""4111********1111"",""score"":0.97,""start"":10,""end"":29}]",[],{}\n',
  ndjson: '{"id":"0195b1d4-2e33-7f10-a1b2-3c4d5e6f7a04","timestamp":"2026-03-02T09:15:27.482Z","platform_id":"chatgpt",…}\n',
};
const AUDIT_EXAMPLE = {
  csv: 'id,occurred_at,actor_type,actor_id,actor_label,action,target_type,target_id,details,ip,request_id\n'
    + '0195b1d4-5a6b-7c8d-9e0f-1a2b3c4d5e11,2026-03-02T09:40:00.000Z,user,0195a3c2-7a11-7c52-8e4b-2d3f5a7b9c03,'
    + 'admin@example.com,audit_log.exported,audit_log,,"{""format"":""csv"",""filters"":{}}",203.0.113.7,\n',
  ndjson: '{"id":"0195b1d4-5a6b-7c8d-9e0f-1a2b3c4d5e11","occurred_at":"2026-03-02T09:40:00.000Z","action":"audit_log.exported",…}\n',
};

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
      operationId: 'exportInteractions',
      summary: 'Export interactions',
      description: "Every interaction the list's filters select, in its order, as CSV or NDJSON, streamed as a file "
        + '(`Content-Disposition`). The export is audited.',
      querystring: InteractionsExportQuery,
      response: { 200: FILE('The interactions', INTERACTIONS_EXAMPLE) },
    },
  }, async (request, reply) => {
    const { format = 'csv', ...filters } = request.query;
    return sendFile(reply, format, await exportInteractions(deps, request.ctx, format, filters));
  });

  app.get('/audit-log/export', {
    schema: {
      tags: ['audit'],
      operationId: 'exportAuditLog',
      summary: 'Export the audit log',
      description: 'The audit entries the filters select, newest first, as CSV or NDJSON, streamed as a file. The '
        + 'export is audited, and its own entry is in the file.',
      querystring: AuditExportQuery,
      response: { 200: FILE('The audit entries', AUDIT_EXAMPLE) },
    },
  }, async (request, reply) => {
    const { format = 'csv', ...filters } = request.query;
    return sendFile(reply, format, await exportAuditLog(deps, request.ctx, format, filters));
  });
};
