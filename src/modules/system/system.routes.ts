import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { SERVICE_VERSION } from '../../version.js';

const Probe = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) });

/** Liveness and readiness probes, outside `/api/v1`. */
export const probeRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/healthz', {
    config: { access: { public: true } },
    logLevel: 'warn',
    schema: { tags: ['operations'], summary: 'Liveness: the process answers', response: { 200: Probe } },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    config: { access: { public: true } },
    logLevel: 'warn',
    schema: {
      tags: ['operations'],
      summary: 'Readiness: store reachable, migrations done, not shutting down',
      response: { 200: Probe, 503: Probe },
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
    config: { access: { public: true } },
    schema: {
      tags: ['operations'],
      summary: 'The running release',
      security: [],
      response: { 200: Type.Object({ version: Type.String(), store: Type.String() }) },
    },
  }, async () => ({ version: SERVICE_VERSION, store: deps.store.kind }));

};
