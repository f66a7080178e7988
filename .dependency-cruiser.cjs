/**
 * The layers of src/ and what each may import (docs/architecture.md):
 *   kernel    src/kernel/      ids, dates, canonical JSON, paging, errors, lock ids, table types
 *   config    src/config/      the environment, parsed and validated
 *   platform  src/platform/    store, migrations, outbox, metrics, group commit, HTTP validation
 *   features  src/modules/*    routes, services, repos, schemas of one feature each
 *   edge      src/edge/, src/*.ts   wiring, plugins, the OpenAPI document and the event catalog
 * A layer imports only the layers below it; nothing imports in a circle, neither files nor folders.
 */
const below = (layer) => ({
  kernel: '^src/(config|platform|modules|edge)/|^src/[^/]+\\.ts$',
  config: '^src/(platform|modules|edge)/|^src/[^/]+\\.ts$',
  platform: '^src/(modules|edge)/|^src/[^/]+\\.ts$',
  modules: '^src/edge/|^src/[^/]+\\.ts$',
})[layer];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files importing each other in a circle, directly or through others.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'Folders (features, layers) importing each other in a circle.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...['kernel', 'config', 'platform', 'modules'].map((layer) => ({
      name: `${layer}-imports-only-below`,
      comment: `src/${layer}/ imports only the layers below it.`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: below(layer) },
    })),
    {
      name: 'tables-are-leaves',
      comment: 'Table types import only other table types (and kysely): any layer may import them.',
      severity: 'error',
      from: { path: '^src/kernel/tables/' },
      to: { path: '^src/', pathNot: '^src/kernel/tables/' },
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration is frozen in time: it never imports application code.',
      severity: 'error',
      from: { path: '^src/platform/store/migrations/' },
      to: { path: '^src/', pathNot: '^src/platform/store/migrations/' },
    },
    {
      name: 'outbox-through-its-interface',
      comment: 'Features queue events through platform/outbox/outbox.ts, never the fan-out behind it.',
      severity: 'error',
      from: { pathNot: '^src/platform/outbox/' },
      to: { path: '^src/platform/outbox/fan-out\\.ts$' },
    },
    {
      name: 'no-other-features-internals',
      comment: "A feature reaches another one through its service or schemas, never its repo or routes.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/.*\\.(repo|routes)\\.ts$', pathNot: '^src/modules/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
