import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponses } from '../../lib/schemas.js';
import { ErasureParams, ErasureReceiptSchema, EraseParams } from './erasure.schemas.js';
import { eraseUserInteractions, getErasureReceipt } from './erasure.service.js';

/** Erasure of a person's interactions (GDPR art. 17) and its receipts: admins only. */
export const erasureRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['governance'];

  app.post('/users/:user_id/erase-interactions', {
    schema: {
      tags,
      summary: "Erase every interaction of a user id (a member or not) and their alerts; returns the erasure's receipt",
      params: EraseParams,
      response: { 200: ErasureReceiptSchema, ...errorResponses(400, 401, 403) },
    },
  }, async (request) => eraseUserInteractions(deps, request.ctx, request.params.user_id));

  app.get('/erasures/:erasure_id', {
    schema: {
      tags,
      summary: 'Read the receipt of an erasure',
      params: ErasureParams,
      response: { 200: ErasureReceiptSchema, ...errorResponses(401, 403, 404) },
    },
  }, async (request) => getErasureReceipt(deps, request.ctx, request.params.erasure_id));
};
