import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { eventWebhooksSection } from '../modules/events/event-webhooks.openapi.js';
import { SERVICE_VERSION } from '../version.js';

/** OpenAPI 3.1 generated from the route schemas, served at /api/v1/openapi.json, browsable at /docs. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const events = eventWebhooksSection();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Usage-Governance Service API',
        version: SERVICE_VERSION,
        description: 'Records AI interactions (hashes and risk signals only), evaluates policies, raises alerts and notifies by signed webhooks.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Session token or API key' } },
        schemas: events.schemas,
      },
      webhooks: events.webhooks,
      security: [{ bearer: [] }],
    },
  });
  app.get('/api/v1/openapi.json', {
    config: { access: { public: true } },
    schema: { hide: true },
  }, async () => app.swagger());
}
