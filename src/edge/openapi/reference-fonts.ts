import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The reference page's typefaces, self-hosted from their npm packages instead of Scalar's font
 * host. The family names are the ones Scalar's stylesheet asks for.
 */
const FAMILIES = [
  { pkg: '@fontsource-variable/inter', packaged: 'Inter Variable', family: 'Inter' },
  { pkg: '@fontsource-variable/jetbrains-mono', packaged: 'JetBrains Mono Variable', family: 'JetBrains Mono' },
];

const FILE_REFERENCE = /url\(\.\/files\/([\w.-]+\.woff2)\)/g;

export interface ReferenceFonts {
  /** `@font-face` rules pointing at `${urlPrefix}/<file>`. */
  css: string;
  /** Serves exactly the files the rules name, nothing else of the packages. */
  register(app: FastifyInstance): void;
}

export function referenceFonts(urlPrefix: string): ReferenceFonts {
  const require = createRequire(import.meta.url);
  const files = new Map<string, string>();
  const rules = FAMILIES.map(({ pkg, packaged, family }) => {
    const folder = dirname(require.resolve(`${pkg}/package.json`));
    const css = readFileSync(join(folder, 'index.css'), 'utf8');
    return css.replaceAll(`'${packaged}'`, `'${family}'`).replace(FILE_REFERENCE, (_, file: string) => {
      files.set(file, join(folder, 'files', file));
      return `url(${urlPrefix}/${file})`;
    });
  });
  return {
    css: rules.join('\n'),
    register(app) {
      app.get<{ Params: { file: string } }>(`${urlPrefix}/:file`, { schema: { hide: true } }, async (request, reply) => {
        const path = files.get(request.params.file);
        if (!path) return reply.callNotFound();
        return reply
          .type('font/woff2')
          .header('Cache-Control', 'public, max-age=86400')
          .send(createReadStream(path));
      });
    },
  };
}
