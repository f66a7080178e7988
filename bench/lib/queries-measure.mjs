// Latency of requests (GETs, or JSON POSTs) against the running service: `requests` requests over `concurrency` keep-alive
// connections, each timed on its own (nearest-rank percentiles, as report.mjs computes them).
import { percentile } from './report.mjs';

/** One request, a path (GET) or `{ method, path, body }` (a JSON body): `{ status, body, headers, ms }`. */
export async function send(base, token, request) {
  const { method = 'GET', path, body } = typeof request === 'string' ? { path: request } : request;
  const headers = { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const started = performance.now();
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text, headers: response.headers, ms: performance.now() - started };
}

/** One GET: `{ status, body, headers, ms }`. */
export const get = (base, token, path) => send(base, token, path);

/**
 * `paths` is one request (a path to GET, or `{ method, path, body }`) or a list to rotate through; `requests`
 * of them are timed, or as many as `seconds` allow when set; answers other than `expect` (when set) are counted as errors.
 */
export async function latency(base, token, paths, { requests = 200, seconds, concurrency = 4, expect = 200 } = {}) {
  const list = Array.isArray(paths) ? paths : [paths];
  const times = [];
  let errors = 0;
  let next = 0;
  const deadline = seconds === undefined ? undefined : performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (deadline === undefined ? next < requests : performance.now() < deadline) {
      const request = list[next++ % list.length];
      const answer = await send(base, token, request);
      if (expect !== undefined && answer.status !== expect) errors += 1;
      times.push(answer.ms);
    }
  }));
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), p99: percentile(times, 0.99), errors, count: times.length };
}

/** Follows `next_cursor` with pages of `limit` rows for `pages` pages; returns the last cursor and the rows passed. */
export async function walk(base, token, path, { pages, limit = 500 }) {
  let cursor;
  let depth = 0;
  for (let i = 0; i < pages; i += 1) {
    const url = `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await get(base, token, url);
    if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status} ${answer.body.slice(0, 200)}`);
    const body = JSON.parse(answer.body);
    if (body.next_cursor === undefined) return { cursor: undefined, depth, supported: false };
    depth += body.data.length;
    if (!body.next_cursor) break;
    cursor = body.next_cursor;
  }
  return { cursor, depth, supported: true };
}
