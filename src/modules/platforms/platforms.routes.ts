import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import type { Access } from '../../kernel/context.js';
import { ref } from '../../kernel/schemas.js';
import {
  PlatformListSchema, PlatformParams, PlatformSchema, PlatformUsageListSchema, SetPlatformStatusBody, UsageQuery,
} from './platforms.schemas.js';
import { listPlatforms, platformUsage, setPlatformStatus } from './platforms.service.js';

const READERS: Access = { roles: ['admin', 'viewer'] };

/** The catalog of AI platforms with the tenant's statuses: admins set them (the default access), viewers read. */
export const platformsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['platforms'];

  app.get('/platforms', {
    config: { access: READERS },
    schema: {
      tags,
      operationId: 'listPlatforms',
      summary: 'List AI platforms',
      description: "The catalog of AI platforms, with the tenant's status of each (`unsanctioned` until set) and its "
        + 'overrides, then the platforms seen in the tenant\'s interactions (or given a status) that the catalog lacks '
        + '(`catalog: false`, their facts null or empty); all by id.',
      response: { 200: ref(PlatformListSchema) },
    },
  }, async (request) => listPlatforms(deps, request.ctx));

  app.get('/platforms/usage', {
    config: { access: READERS },
    schema: {
      tags,
      operationId: 'getPlatformUsage',
      summary: 'Which AI platforms staff use',
      description: 'Each platform with at least one interaction in the period (`start_date`, `end_date`: inclusive, '
        + 'optional; none is the whole history): its interactions, distinct users, high-risk interactions (`risk_score '
        + '>= 0.7`), first and last interaction in the period, and the tenant\'s status now; most interactions first. '
        + 'The counts are those of `GET /interactions?platform_id=…` over the same dates, read from the roll-ups and the rows of the last minutes.',
      querystring: UsageQuery,
      response: { 200: ref(PlatformUsageListSchema) },
    },
  }, async (request) => platformUsage(deps, request.ctx, request.query));

  app.put('/platforms/:platform_id/status', {
    schema: {
      tags,
      operationId: 'setPlatformStatus',
      summary: "Set the tenant's status of a platform",
      description: 'Sanction, unsanction or block a platform of the catalog or of the tenant\'s interactions (another id is '
        + '404), with a note and, optionally, the tenant\'s own name, category or risk tier of it. Policies with the '
        + 'condition `platform_statuses` apply the change to the next interaction created. Each change is audited with '
        + 'its old and new values.',
      params: PlatformParams,
      body: ref(SetPlatformStatusBody),
      response: { 200: ref(PlatformSchema) },
    },
  }, async (request) => setPlatformStatus(deps, request.ctx, request.params.platform_id, request.body));
};
