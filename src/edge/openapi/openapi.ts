import swagger, { type SwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { completeDocument, completeRoute, DOCUMENT_BASE } from './openapi-document.js';

/**
 * OpenAPI 3.1 generated from the route schemas, served at /api/v1/openapi.json, browsable at /docs.
 * Component schemas are the ones added with `addSchema` (plugins/components.ts), named by their `$id`.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const options: SwaggerOptions = {
    openapi: DOCUMENT_BASE,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: completeRoute,
    transformObject: completeDocument,
  };
  await app.register(swagger, options);
  app.get('/api/v1/openapi.json', {
    config: { access: { public: true }, storeFree: true },
    schema: { hide: true },
  }, async () => app.swagger());
}
