import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponses } from '../../lib/schemas.js';
import { getTenantSettings, updateTenantSettings } from './tenant-settings.js';
import { TenantSchema, UpdateTenantBody } from './tenants.schemas.js';

/** The caller's organisation: admins and viewers read it, admins change its settings. */
export const tenantRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['tenants'];

  app.get('/tenant', {
    config: { access: { roles: ['admin', 'viewer'] } },
    schema: {
      tags,
      summary: "The caller's tenant and its settings",
      response: { 200: TenantSchema, ...errorResponses(401, 403) },
    },
  }, async (request) => getTenantSettings(deps, request.ctx));

  app.put('/tenant', {
    schema: {
      tags,
      summary: "Change the tenant's settings (name, retention, signal validation); the others keep their value",
      body: UpdateTenantBody,
      response: { 200: TenantSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => updateTenantSettings(deps, request.ctx, request.body));
};
