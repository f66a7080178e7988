import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../platform/deps.js';
import { ref } from '../../kernel/schemas.js';
import { SERVICE_VERSION } from '../../kernel/version.js';
import { ProbeSchema, VersionSchema } from './system.schemas.js';

const Probe = ref(ProbeSchema);

/** Liveness and readiness probes, outside `/api/v1`. */
export const probeRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/healthz', {
    config: { access: { public: true }, storeFree: true },
    logLevel: 'warn',
    schema: {
      tags: ['operations'],
      operationId: 'getHealth',
      summary: 'Liveness probe',
      description: 'Liveness: the process answers. It does not touch the store, so a store outage does not restart the process.',
      response: { 200: Probe },
    },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    config: { access: { public: true } },
    logLevel: 'warn',
    schema: {
      tags: ['operations'],
      operationId: 'getReadiness',
      summary: 'Readiness probe',
      description: 'Readiness: the store is reachable, migrations are done and the process is not shutting down. '
        + 'Otherwise 503, with `Retry-After`, and the failing check in `checks`.',
      response: { 200: Probe, 503: { ...Probe, description: 'Not ready' } },
    },
  }, async (_request, reply) => {
    const store = await deps.store.ping().then(() => 'ok', () => 'unreachable');
    const checks = {
      store,
      migrations: deps.lifecycle.migrated ? 'ok' : 'pending',
      shutdown: deps.lifecycle.shuttingDown ? 'in progress' : 'no',
    };
    const ready = store === 'ok' && deps.lifecycle.migrated && !deps.lifecycle.shuttingDown;
    if (!ready) reply.header('Retry-After', '5');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
};

export const versionRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/version', {
    config: { access: { public: true }, storeFree: true },
    schema: {
      tags: ['operations'],
      operationId: 'getVersion',
      summary: 'Get the running version',
      description: 'The running release and the kind of store (embedded or PostgreSQL).',
      response: { 200: ref(VersionSchema) },
    },
  }, async () => ({ version: SERVICE_VERSION, store: deps.store.kind }));

};
