import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/edge/console.js';
import { Harness } from '../helpers/harness.js';

/** How the service serves the built console; it touches no store, so the embedded one is enough. */
describe('console serving', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start('pglite');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves the console at / with a strict CSP, never cached', async () => {
    const response = await h.call('GET', '/', { headers: { accept: 'text/html' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    // No inline script: every script element loads a file of this origin.
    expect(response.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(response.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
  });

  it('serves page paths as the console and keeps the API and unknown files as JSON 404s', async () => {
    for (const path of ['/interactions', '/webhooks/whk_123', '/accept-invite?token=inv_x']) {
      const page = await h.call('GET', path, { headers: { accept: 'text/html,application/xhtml+xml' } });
      expect(page.statusCode, path).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    }
    for (const path of ['/api/v1/nothing-here', '/assets/missing.js', '/favicon.ico', '/docsx/../api/v1/x']) {
      const missing = await h.call('GET', path, { headers: { accept: 'text/html' } });
      expect(missing.statusCode, path).toBe(404);
      if (!path.startsWith('/assets/')) expect(missing.json(), path).toMatchObject({ code: 'not_found' });
    }
    const notHtml = await h.call('GET', '/interactions');
    expect(notHtml.statusCode).toBe(404);
    expect(notHtml.json()).toMatchObject({ code: 'not_found' });
  });

  it('serves hashed assets precompressed and cached for a year', async () => {
    const html = (await h.call('GET', '/', { headers: { accept: 'text/html' } })).body;
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const brotli = await h.call('GET', script!, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(brotli.statusCode).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const plain = await h.call('GET', script!);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/javascript/);
    expect(Number(brotli.headers['content-length'])).toBeLessThan(plain.body.length);
  });
});
