import type { FastifyInstance, FastifyRequest } from 'fastify';
import { openRequestScope, type RequestScope } from '../store/tenant-scope.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenants this request's queries may see: none until its caller is authenticated. */
    tenantScope: { scope: RequestScope; run: (next: () => void) => void };
  }
}

/**
 * Gives every request its own tenant scope (row-level security), empty until authentication
 * fills it. Hooks with `done` rather than async ones: the rest of the request then runs inside.
 */
export function registerRequestScope(app: FastifyInstance): void {
  app.decorateRequest('tenantScope', null as unknown as FastifyRequest['tenantScope']);
  app.addHook('onRequest', (request, _reply, done) => {
    request.tenantScope = openRequestScope();
    request.tenantScope.run(done);
  });
  app.addHook('preValidation', (request, _reply, done) => request.tenantScope.run(done));
}

/** From now on this request's queries see this tenant's rows. */
export function scopeRequestToTenant(request: FastifyRequest, tenantId: string): void {
  request.tenantScope.scope.scope = { kind: 'tenants', tenantIds: [tenantId] };
}
