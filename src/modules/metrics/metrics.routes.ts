import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../platform/deps.js';
import { constantTimeEqual } from '../../kernel/crypto.js';
import { AppError } from '../../kernel/errors.js';
import { errorResponses } from '../../kernel/schemas.js';
import { metricsRegistry, serviceMetrics } from '../../platform/metrics/metrics.js';

/** Counts every answered request by its route template (never its URL: ids stay out of labels). */
export function countRequests(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { route: request.routeOptions.url ?? 'unmatched', method: request.method, status: reply.statusCode };
    serviceMetrics.httpRequests.inc(labels);
    serviceMetrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}

/** `GET /metrics`: Prometheus text exposition, behind `METRICS_TOKEN` when it is set. */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const registry = metricsRegistry(deps);
  app.get('/metrics', {
    config: { access: { public: true } },
    logLevel: 'warn',
    schema: {
      // Scraped by Prometheus with its own token, not called by API clients: out of the API document.
      hide: true,
      tags: ['operations'],
      summary: 'Prometheus metrics (text exposition format); a bearer token when METRICS_TOKEN is set',
      security: deps.config.metrics.token ? [{ bearer: [] }] : [],
      response: { 200: Type.String({ description: 'Prometheus text format 0.0.4' }), ...errorResponses(401) },
    },
  }, async (request, reply) => {
    const expected = deps.config.metrics.token;
    if (expected) {
      const given = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (!given || !constantTimeEqual(given, expected)) {
        reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new AppError('unauthorized', 'GET /metrics needs the bearer token set in METRICS_TOKEN');
      }
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
};
