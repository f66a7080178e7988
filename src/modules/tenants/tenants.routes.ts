import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { ref } from '../../kernel/schemas.js';
import { getTenantSettings, updateTenantSettings } from './tenant-settings.js';
import { TenantSchema, UpdateTenantBody } from './tenants.schemas.js';

/** The caller's organisation: admins and viewers read it, admins change its settings. */
export const tenantRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['tenants'];

  app.get('/tenant', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags,
      operationId: 'getTenant',
      summary: "Get the caller's tenant",
      description: 'The organization the caller belongs to, with its settings: retention of interactions and of the '
        + 'audit log, and whether risk signals are validated.',
      response: { 200: ref(TenantSchema) },
    },
  }, async (request) => getTenantSettings(deps, request.ctx));

  app.put('/tenant', {
    schema: {
      tags,
      operationId: 'updateTenant',
      summary: "Change the tenant's settings",
      description: 'Changes the settings given (name, `retention_days`, `audit_retention_days`, `validate_signals`, '
        + '`signal_values`); '
        + 'the others keep their value. Each change is audited with its old and new value.',
      body: ref(UpdateTenantBody),
      response: { 200: ref(TenantSchema) },
    },
  }, async (request) => updateTenantSettings(deps, request.ctx, request.body));
};
