import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { ref } from '../../kernel/schemas.js';
import { ErasureParams, ErasureReceiptSchema, EraseParams } from './erasure.schemas.js';
import { eraseUserInteractions, getErasureReceipt } from './erasure.service.js';

/** Erasure of a person's interactions (GDPR art. 17) and its receipts: admins only. */
export const erasureRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['governance'];

  app.post('/users/:user_id/erase-interactions', {
    schema: {
      tags,
      operationId: 'eraseUserInteractions',
      summary: "Erase a person's interactions",
      description: 'Deletes every interaction carrying this user id (a member or not) and their alerts, in batches, '
        + '(GDPR art. 17) and returns the receipt, which the audit log keeps. Asking again is safe.',
      params: EraseParams,
      response: { 200: ref(ErasureReceiptSchema) },
    },
  }, async (request) => eraseUserInteractions(deps, request.ctx, request.params.user_id));

  app.get('/erasures/:erasure_id', {
    schema: {
      tags,
      operationId: 'getErasure',
      summary: 'Get the receipt of an erasure',
      description: "The receipt of one of the tenant's erasures, as its audit entry keeps it.",
      params: ErasureParams,
      response: { 200: ref(ErasureReceiptSchema) },
    },
  }, async (request) => getErasureReceipt(deps, request.ctx, request.params.erasure_id));
};
