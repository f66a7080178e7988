import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { HOME_PAGE } from '../../src/edge/openapi/reference-page.js';
import { Harness } from '../helpers/harness.js';
import { tempDir } from '../helpers/process.js';
import { STORES } from '../helpers/stores.js';

describe.each(STORES)('API reference page and home redirect [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind);
  });
  afterAll(async () => h.close());

  const get = (url: string) => h.app.inject({ method: 'GET', url });

  it('GET / is the console when one is built', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<div id="root"></div>');
  });

  it('GET / redirects to the reference page when no console is built, with no token needed', async () => {
    const app = await buildApp(h.deps, { consoleDir: tempDir('ugs-no-console-') });
    const response = await app.inject({ method: 'GET', url: '/' });
    await app.close();
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(HOME_PAGE);
    expect(HOME_PAGE).toBe('/docs/');
    const followed = await get(response.headers.location as string);
    expect(followed.statusCode).toBe(200);
    expect(followed.headers['content-type']).toMatch(/^text\/html/);
  });

  it('sends /docs to /docs/, and answers concurrent first visits alike (the renderer loads on the first)', async () => {
    const app = await buildApp(h.deps, {});
    try {
      const bare = await app.inject({ method: 'GET', url: '/docs' });
      expect([bare.statusCode, bare.headers.location]).toEqual([301, '/docs/']);
      const pages = await Promise.all([1, 2, 3].map(() => app.inject({ method: 'GET', url: '/docs/' })));
      expect(pages.map((page) => page.statusCode)).toEqual([200, 200, 200]);
      expect(new Set(pages.map((page) => page.body)).size).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('answers other methods on / with the JSON 404', async () => {
    const response = await h.app.inject({ method: 'POST', url: '/', payload: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'No route for POST /', code: 'not_found' });
  });

  it('serves the page with a Content-Security-Policy that allows only this origin and its own inline script', async () => {
    const page = await get('/docs/');
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    const directives = new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('font-src')).toEqual(["'self'"]);
    expect(directives.get('img-src')).toEqual(["'self'", 'data:']);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    const inline = [...page.body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(([, body]) => body!);
    expect(inline).toHaveLength(1);
    const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`;
    expect(directives.get('script-src')).toEqual(["'self'", hash]);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');

    // Nothing on the page names another host: the script and the document are this service's.
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    expect(page.body).toContain('src="js/scalar.js"');
    expect(page.body).toContain('"url": "/api/v1/openapi.json"');
    expect(page.body).not.toContain('fonts.scalar.com');

    const script = await get('/docs/js/scalar.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^application\/javascript/);
    // A script needs no policy of its own: it gets the strict one of every answer, which does not apply to it as a page's script.
    expect(script.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('serves the fonts the page names, and nothing else from their packages', async () => {
    const page = await get('/docs/');
    const fontUrls = [...page.body.matchAll(/url\((\/docs\/fonts\/[\w.-]+)\)/g)].map(([, url]) => url!);
    expect(fontUrls).toEqual(expect.arrayContaining([
      '/docs/fonts/inter-latin-wght-normal.woff2', '/docs/fonts/jetbrains-mono-latin-wght-normal.woff2',
    ]));
    expect(page.body).toMatch(/font-family: 'Inter';/);
    expect(page.body).toMatch(/font-family: 'JetBrains Mono';/);
    for (const url of fontUrls) {
      const font = await get(url);
      expect(font.statusCode, url).toBe(200);
      expect(font.headers['content-type']).toBe('font/woff2');
      expect(font.rawPayload.subarray(0, 4).toString('latin1'), url).toBe('wOF2');
    }

    for (const url of ['/docs/fonts/nope.woff2', '/docs/fonts/index.css', '/docs/fonts/..%2Fpackage.json', '/docs/fonts/..%2F..%2Findex.css']) {
      const missing = await get(url);
      expect(missing.statusCode, url).toBe(404);
      expect(missing.json().code, url).toBe('not_found');
    }
  });

  it('turns off the hosted features that would send the document elsewhere', async () => {
    const page = await get('/docs/');
    const configuration = /createApiReference\('#app', (\{[\s\S]*?\})\)\s*<\/script>/.exec(page.body)?.[1];
    expect(configuration).toBeDefined();
    expect(JSON.parse(configuration!)).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
    });
  });
});
