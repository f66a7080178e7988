import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The console is built into the service's own build output (dist/console), which the service
 * serves at `/`: hashed files under /assets/ (cached for a year), index.html never cached.
 */
/**
 * Writes `.br` and `.gz` beside each script, stylesheet and SVG, which the service sends as they
 * are (@fastify/static's preCompressed): compressed once at build time, not per request. Node's
 * zlib does it in a dozen lines, so no plugin package is needed.
 */
function precompress(outDir: string): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets).filter((file) => /\.(js|css|svg)$/.test(file))) {
        const content = readFileSync(join(assets, name));
        writeFileSync(join(assets, `${name}.br`), brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assets, `${name}.gz`), gzipSync(content, { level: 9 }));
      }
    },
  };
}

// CONSOLE_OUT_DIR builds elsewhere (tests running side by side each use their own build).
const outDir = process.env.CONSOLE_OUT_DIR ?? here('../dist/console');

export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [react(), precompress(outDir)],
  resolve: { alias: { '@sdk': here('../sdk/src') } },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    // The CSP forbids inline scripts, and the icon is a data: URL; nothing else may be inlined as script.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 600,
    reportCompressedSize: false,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
