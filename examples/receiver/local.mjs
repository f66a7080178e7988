// Local webhooks in one command (npm run webhooks:local): makes a local CA and a certificate for
// 127.0.0.1/localhost, starts the example receiver with it, and prints how to start the service
// so that it trusts the receiver, and the curl that registers the webhook (its answer, with the
// signing secret, goes to the file the receiver reads its secret from).
//   npm run webhooks:local -- [--port 8443] [--service-url http://localhost:8080] [--dir .local-webhooks]
// Instructions go to stderr; events to stdout, one JSON line each.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { WEBHOOK_EVENT_TYPES } from '../../sdk/dist/index.js';
import { localCertificates } from './certificates.mjs';
import { secretsFrom, startReceiver } from './receiver.mjs';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8443' },
    'service-url': { type: 'string', default: 'http://localhost:8080' },
    dir: { type: 'string', default: join(import.meta.dirname, '../../.local-webhooks') },
  },
});
const dir = resolve(values.dir);
const serviceUrl = values['service-url'].replace(/\/+$/, '');
const quote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

const certificates = localCertificates(dir);
const secretFile = join(dir, 'webhook.json');
const receiver = await startReceiver({
  port: Number(values.port),
  cert: readFileSync(certificates.certFile),
  key: readFileSync(certificates.keyFile),
  secrets: () => secretsFrom({ WEBHOOK_SECRET_FILE: secretFile }),
});
const receiverUrl = `https://127.0.0.1:${receiver.port}/`;
// Every event but the audit log's stream (audit.entry), which a SIEM subscribes to by name.
const events = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'audit.entry');
const registration = JSON.stringify({ url: receiverUrl, events, description: 'local receiver' });

console.error(`Webhook receiver listening on ${receiverUrl} (certificates in ${dir}${certificates.created ? ', just made' : ''}). Ctrl-C stops it.

1. Start the service so that it may call 127.0.0.1 and trusts the local CA:

WEBHOOK_ALLOW_PRIVATE_TARGETS=true WEBHOOK_CA_FILE=${quote(certificates.caFile)} npm start

2. Register the webhook with an admin's token (TOKEN, from POST /api/v1/auth/login); its answer,
   with the signing secret, is saved where the receiver reads it:

curl -s -X POST ${serviceUrl}/api/v1/webhooks -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d ${quote(registration)} | tee ${quote(secretFile)}

3. Events print below, one line each. After POST /api/v1/webhooks/<id>/rotate-secret, save its
   answer the same way (| tee ${quote(secretFile)}).
`);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => receiver.close().then(() => process.exit(0)));
