// A webhook receiver over HTTPS with nothing but Node and the SDK: it verifies each delivery's
// signature, answers 401 with a JSON `error` when it does not verify, handles each event id once
// (deliveries are at least once) and prints each new event as one line of JSON on stdout.
//
//   TLS_CERT_FILE=server.pem TLS_KEY_FILE=server.key WEBHOOK_SECRET=whsec_… PORT=8443 node examples/receiver/receiver.mjs
//
// WEBHOOK_SECRET may list several secrets separated by commas (during a rotation).
// WEBHOOK_SECRET_FILE instead names a file read at each delivery: a secret, or the JSON answer of
// POST /api/v1/webhooks or /rotate-secret (its `signing_secret`).
// In a project of your own, import from '@usage-governance/sdk' (npm run sdk:build makes sdk/dist).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { pathToFileURL } from 'node:url';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/dist/index.js';

const MAX_BODY_BYTES = 1024 * 1024;
const REMEMBERED_EVENT_IDS = 10_000;

/** The secrets from WEBHOOK_SECRET or WEBHOOK_SECRET_FILE, read now. */
export function secretsFrom(env) {
  if (env.WEBHOOK_SECRET) return env.WEBHOOK_SECRET.split(',').map((s) => s.trim()).filter(Boolean);
  if (!env.WEBHOOK_SECRET_FILE) return [];
  let text;
  try {
    text = readFileSync(env.WEBHOOK_SECRET_FILE, 'utf8').trim();
  } catch {
    return [];
  }
  if (text.startsWith('{')) {
    try {
      const secret = JSON.parse(text).signing_secret;
      return typeof secret === 'string' ? [secret] : [];
    } catch {
      return [];
    }
  }
  return text ? [text] : [];
}

/**
 * Starts the receiver; resolves with `{ port, close }` once it listens.
 * `secrets()` is called at each delivery, so a changed secret file applies at once.
 */
export function startReceiver({ port = 8443, host = '127.0.0.1', cert, key, secrets, print = console.log, log = console.error }) {
  const seen = new Set();
  const answer = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = createServer({ cert, key }, (req, res) => {
    if (req.method !== 'POST') return answer(res, 405, { error: 'deliveries are POST requests' });
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        answer(res, 413, { error: 'body too large' });
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      const keys = secrets();
      if (keys.length === 0) {
        log('receiver: no signing secret yet; answered 503 so that the service retries');
        return answer(res, 503, { error: 'no signing secret configured yet' });
      }
      let event;
      try {
        event = verifyWebhook(Buffer.concat(chunks), req.headers, keys);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) {
          log(`receiver: ${error}`);
          return answer(res, 500, { error: 'receiver failure' });
        }
        log(`receiver: rejected a delivery (${error.reason}: ${error.message})`);
        return answer(res, 401, { error: `invalid signature: ${error.message}` });
      }
      if (seen.has(event.id)) {
        log(`receiver: ${event.id} (${event.event_type}) again, already handled`);
        return answer(res, 200, { received: true, duplicate: true });
      }
      seen.add(event.id);
      if (seen.size > REMEMBERED_EVENT_IDS) seen.delete(seen.values().next().value);
      print(JSON.stringify(event));
      answer(res, 200, { received: true });
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({
        port: server.address().port,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  if (!env.TLS_CERT_FILE || !env.TLS_KEY_FILE) {
    console.error('receiver: set TLS_CERT_FILE and TLS_KEY_FILE (PEM), and WEBHOOK_SECRET or WEBHOOK_SECRET_FILE');
    process.exit(2);
  }
  const receiver = await startReceiver({
    port: Number(env.PORT ?? 8443),
    host: env.HOST ?? '127.0.0.1',
    cert: readFileSync(env.TLS_CERT_FILE),
    key: readFileSync(env.TLS_KEY_FILE),
    secrets: () => secretsFrom(env),
  });
  console.error(`receiver: listening on https://${env.HOST ?? '127.0.0.1'}:${receiver.port}/`);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => receiver.close().then(() => process.exit(0)));
}
