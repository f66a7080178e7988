import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { SCOPES } from '../../kernel/context.js';
import { ref } from '../../kernel/schemas.js';
import { EVENT_CATALOG } from './event-catalog.js';
import { EventTypeListSchema } from './event-types.schemas.js';

const EVENT_TYPE_LIST = {
  event_types: EVENT_CATALOG.map(({ type, description, schema, sample }) => ({ type, description, schema, sample })),
};

/**
 * The event catalog: public knowledge about the service, not tenant data, so every signed-in
 * user and every API key (whatever its scopes) may read it.
 */
export const eventsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app) => {
  app.get('/event-types', {
    config: { access: { roles: ['admin', 'viewer'], scopes: [...SCOPES] } },
    schema: {
      tags: ['webhooks'],
      operationId: 'listEventTypes',
      summary: 'List the event types',
      description: 'Every event type webhooks can subscribe to, in a stable order: when it is emitted, the JSON Schema '
        + 'of the whole delivery body (the envelope with its `data`) and a realistic sample. Readable by every signed-in '
        + 'user and every API key. The same schemas are in this document\'s `webhooks` section.',
      response: { 200: ref(EventTypeListSchema) },
    },
  }, async () => EVENT_TYPE_LIST);
};
