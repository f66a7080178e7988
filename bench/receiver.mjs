// The webhook receiver of the delivery bench, in a process of its own (started by bench/lib/receiver-client.mjs
// with child_process.fork). HTTPS on 127.0.0.1 with the certificate in RECEIVER_CERT/RECEIVER_KEY:
// - checks `X-Service-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>` on paths whose secret it was given (400 if wrong);
// - answers 200 at once, or after RECEIVER_SLOW_MS (default 1000) on paths starting with /slow;
// - on paths containing /hec, speaks Splunk HEC: `Authorization: Splunk <token>` checked against the secret it was
//   given for the path (403 code 4 if wrong), the body read as newline-separated HEC events, each counted as one
//   event (its `event` is the envelope), answered `{"text":"Success","code":0}`;
// - records each accepted request's receipt time (wall-clock ms, sub-ms precision) by interaction id and event id.
// Control API, plain HTTP on another loopback port: POST /secret {path, secret}; POST /reset;
// GET /stats[?path=P[&receipts=1][&from=T&to=T]]; GET /sample (the latest interaction.created body).
// Sends { httpsPort, controlPort } to the parent over IPC once both listen; exits when the parent goes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const SLOW_MS = Number(process.env.RECEIVER_SLOW_MS ?? 1000);
const now = () => performance.timeOrigin + performance.now();

let secrets = new Map();
let paths = new Map();
let sample = null;

function statsOf(path) {
  let stats = paths.get(path);
  if (!stats) {
    stats = { requests: 0, badSignatures: 0, unparsable: 0, duplicates: 0, times: [], interactions: new Map(), events: new Map() };
    paths.set(path, stats);
  }
  return stats;
}

function signatureOk(secret, header, body) {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const HEC_SUCCESS = '{"text":"Success","code":0}';

function recordHec(path, headers, body, at) {
  const stats = statsOf(path);
  stats.requests += 1;
  const token = secrets.get(path);
  if (token !== undefined && headers.authorization !== `Splunk ${token}`) {
    stats.badSignatures += 1;
    return { status: 403, answer: '{"text":"Invalid token","code":4}' };
  }
  for (const line of body.toString().split('\n')) {
    if (line === '') continue;
    let event;
    try {
      event = JSON.parse(line).event;
    } catch {
      stats.unparsable += 1;
      return { status: 400, answer: '{"text":"Invalid data format","code":6}' };
    }
    countEvent(stats, path, event, at, line);
  }
  return { status: 200, answer: HEC_SUCCESS };
}

function countEvent(stats, path, event, at, body) {
  stats.times.push(at);
  if (stats.events.has(event.id)) stats.duplicates += 1;
  else stats.events.set(event.id, at);
  const interactionId = event.event_type?.startsWith('interaction.') ? event.data?.id : undefined;
  if (interactionId !== undefined && !stats.interactions.has(interactionId)) stats.interactions.set(interactionId, at);
  if (event.event_type === 'interaction.created' && !path.includes('/hec')) sample = { path, body };
}

function record(path, headers, body, at) {
  const stats = statsOf(path);
  stats.requests += 1;
  const secret = secrets.get(path);
  if (secret !== undefined && !signatureOk(secret, headers['x-service-signature'], body)) {
    stats.badSignatures += 1;
    return 400;
  }
  let event;
  try {
    event = JSON.parse(body.toString());
  } catch {
    stats.unparsable += 1;
    return 200;
  }
  countEvent(stats, path, event, at, body.toString());
  return 200;
}

function summary(stats, query) {
  let first = Infinity;
  let last = -Infinity;
  for (const t of stats.times) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  const result = {
    requests: stats.requests, accepted: stats.times.length, bad_signatures: stats.badSignatures,
    unparsable: stats.unparsable, duplicates: stats.duplicates,
    distinct_events: stats.events.size, distinct_interactions: stats.interactions.size,
    first: stats.times.length ? first : null, last: stats.times.length ? last : null,
  };
  if (query.get('receipts') === '1') {
    result.interactions = Object.fromEntries(stats.interactions);
    result.events = Object.fromEntries(stats.events);
  }
  if (query.has('from') && query.has('to')) {
    const from = Number(query.get('from'));
    const to = Number(query.get('to'));
    result.window_count = stats.times.filter((t) => t >= from && t <= to).length;
  }
  return result;
}

const receiver = https.createServer({ cert: readFileSync(process.env.RECEIVER_CERT), key: readFileSync(process.env.RECEIVER_KEY) }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    const path = (req.url ?? '/').split('?')[0];
    const { status, answer: text } = path.includes('/hec')
      ? recordHec(path, req.headers, Buffer.concat(chunks), at)
      : { status: record(path, req.headers, Buffer.concat(chunks), at), answer: '{"ok":true}' };
    const answer = () => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (status === 200 && path.startsWith('/slow')) setTimeout(answer, SLOW_MS);
    else answer();
  });
});

const control = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const reply = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value ?? null));
    };
    if (req.method === 'POST' && url.pathname === '/secret') {
      const { path, secret } = JSON.parse(Buffer.concat(chunks).toString());
      secrets.set(path, secret);
      return reply(200, { ok: true });
    }
    if (req.method === 'POST' && url.pathname === '/reset') {
      secrets = new Map();
      paths = new Map();
      return reply(200, { ok: true });
    }
    if (req.method === 'GET' && url.pathname === '/stats') {
      const path = url.searchParams.get('path');
      if (path !== null) return reply(200, summary(statsOf(path), url.searchParams));
      return reply(200, Object.fromEntries([...paths].map(([p, stats]) => [p, summary(stats, url.searchParams)])));
    }
    if (req.method === 'GET' && url.pathname === '/sample') return reply(200, sample);
    return reply(404, { error: 'not found' });
  });
});

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const [httpsPort, controlPort] = await Promise.all([listen(receiver), listen(control)]);
process.send?.({ httpsPort, controlPort });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
