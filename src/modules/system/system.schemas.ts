import { Type } from 'typebox';
import { component } from '../../kernel/schemas.js';

export const ProbeSchema = component('Probe', Type.Object({
  status: Type.String({ description: '`ok` (liveness), `ready` or `not ready` (readiness)' }),
  checks: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Readiness only: each check and its state' })),
}), {
  description: 'The answer of a liveness or readiness probe.',
  example: { status: 'ready', checks: { store: 'ok', migrations: 'ok', shutdown: 'no' } },
});

export const VersionSchema = component('Version', Type.Object({
  version: Type.String({ description: 'The release, e.g. `v0.8.0`' }),
  store: Type.String({ description: '`pglite` (embedded) or `postgres`' }),
}), { description: 'The running release and the kind of store it uses.', example: { version: 'v0.8.0', store: 'postgres' } });

