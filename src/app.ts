import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import type { DestinationStream } from 'pino';
import type { Deps } from './platform/deps.js';
import { buildServices, type Services } from './services.js';
import { COMPONENT_SCHEMAS } from './edge/openapi/components.js';
import { freshSample } from './edge/event-catalog/event-samples.js';
import { authenticate } from './modules/auth/authenticate.js';
import { frameworkErrors, MAX_PARAM_LENGTH, registerErrorHandling } from './edge/errors.js';
import { logRedaction } from './edge/log-redaction.js';
import { registerOpenApi } from './edge/openapi/openapi.js';
import { registerConsole } from './edge/console.js';
import { registerSecurityHeaders } from './edge/security-headers.js';
import { registerReferencePage } from './edge/openapi/reference-page.js';
import { registerValidation } from './platform/http/validation.js';
import { registerRequestScope } from './platform/http/request-scope.js';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { probeRoutes, versionRoutes } from './modules/system/system.routes.js';
import { exportsRoutes } from './modules/exports/exports.routes.js';
import { erasureRoutes } from './modules/erasure/erasure.routes.js';
import { tenantRoutes } from './modules/tenants/tenants.routes.js';
import { ssoRoutes } from './modules/sso/sso.routes.js';
import { eventsRoutes } from './edge/event-catalog/event-types.routes.js';
import { countRequests, metricsRoutes } from './modules/metrics/metrics.routes.js';
import { alertsRoutes } from './modules/alerts/alerts.routes.js';
import { interactionsRoutes } from './modules/interactions/interactions.routes.js';
import { policiesRoutes } from './modules/policies/policies.routes.js';
import { platformsRoutes } from './modules/platforms/platforms.routes.js';
import { statsRoutes } from './modules/stats/stats.routes.js';
import { usersRoutes } from './modules/users/users.routes.js';
import { scimRoutes } from './modules/scim/scim.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';

export interface AppOptions {
  logLevel?: string;
  /** Where the log lines go (default: standard output). */
  logStream?: DestinationStream;
  /** The built console to serve at `/` (default: dist/console); without one, `/` redirects to the reference. */
  consoleDir?: string;
  /** The per-app services (default: built for this app by `buildServices`). */
  services?: Services;
}

/** Builds the HTTP application. It never listens: main.ts (or a test) decides that. */
export async function buildApp(deps: Deps, options: AppOptions = {}): Promise<FastifyInstance> {
  const services = options.services ?? buildServices(deps);
  const app = Fastify({
    logger: {
      level: options.logLevel ?? deps.config.server.logLevel,
      ...logRedaction,
      ...(options.logStream && { stream: options.logStream }),
    },
    bodyLimit: deps.config.server.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: false,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Set on arrival, so error and 404 replies carry it too; a synchronous hook costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  registerRequestScope(app);
  registerSecurityHeaders(app);
  countRequests(app);
  app.removeContentTypeParser('text/plain');
  registerValidation(app, COMPONENT_SCHEMAS);
  registerErrorHandling(app, deps.store);
  await registerOpenApi(app);
  const consoleServed = await registerConsole(app, options.consoleDir);
  await registerReferencePage(app, { documentUrl: '/api/v1/openapi.json', redirectHome: !consoleServed });
  await app.register(authenticate, { credentials: services.credentials, rateLimit: services.rateLimit });

  await app.register(probeRoutes, { deps });
  await app.register(metricsRoutes, { deps });
  await app.register(
    async (api) => {
      await api.register(versionRoutes, { deps });
      await api.register(authRoutes, { deps });
      await api.register(apiKeysRoutes, { deps });
      await api.register(auditRoutes, { deps });
      await api.register(usersRoutes, { deps });
      await api.register(interactionsRoutes, { deps, ingest: services.ingest, credentials: services.credentials });
      await api.register(policiesRoutes, { deps });
      await api.register(platformsRoutes, { deps });
      await api.register(alertsRoutes, { deps });
      await api.register(statsRoutes, { deps });
      await api.register(webhooksRoutes, { deps, sampleEvent: freshSample });
      await api.register(eventsRoutes, { deps });
      await api.register(tenantRoutes, { deps });
      await api.register(ssoRoutes, { deps });
      await api.register(erasureRoutes, { deps });
      await api.register(exportsRoutes, { deps });
    },
    { prefix: '/api/v1' },
  );
  await app.register(scimRoutes, { prefix: '/scim/v2', deps, credentials: services.credentials, rateLimit: services.rateLimit });
  return app;
}
