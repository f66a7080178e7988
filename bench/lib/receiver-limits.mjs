// The receiver's own limits, measured in the same run as the figures they bound:
// its ceiling (autocannon, 16 keep-alive connections, signed envelope-sized POSTs) and its
// floor (sequential round trips on one keep-alive connection, the least one delivery can take).
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { percentile } from './report.mjs';
import { cannon, interaction, nowMs } from './service.mjs';

const FLOOR_ROUND_TRIPS = 300;

/** An interaction.created envelope shaped like the service's, for when no real one was received. */
function syntheticEnvelope() {
  const id = crypto.randomUUID();
  return JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`, timestamp: new Date().toISOString(), event_type: 'interaction.created',
    tenant_id: crypto.randomUUID(),
    data: { id, tenant_id: crypto.randomUUID(), timestamp: new Date().toISOString(), ...interaction(0), interaction_type: 'prompt', user_id: null, policy_decisions: [] },
  });
}

/** The headers the service sends with a delivery, signed with `secret`. */
function signedHeaders(secret, body) {
  const { id, event_type: type } = JSON.parse(body);
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return {
    'content-type': 'application/json',
    'user-agent': 'UsageGovernance-Webhooks/1',
    'x-service-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    'x-service-event': type,
    'x-service-event-id': id,
    'x-service-delivery': `dlv_${randomBytes(12).toString('hex')}`,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
  };
}

function postOnce(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`receiver answered ${response.statusCode}`))));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * `{ ceiling (req/s), ceilingErrors, floorP50, floorP99 (ms), bodyBytes, synthetic }`, using the latest
 * interaction.created envelope the receiver got (a synthetic one if none yet), on path `${prefix}/ceiling`.
 */
export async function measureReceiverLimits(receiver, caFile, prefix) {
  const sample = await receiver.sample();
  const body = sample?.body ?? syntheticEnvelope();
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const path = `${prefix}/ceiling`;
  await receiver.setSecret(path, secret);
  const headers = signedHeaders(secret, body);

  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(caFile) });
  const roundTrips = [];
  try {
    await receiver.setSecret(`${prefix}/floor`, secret);
    await postOnce(agent, receiver.url(`${prefix}/floor`), headers, body); // connection set-up, not counted
    for (let i = 0; i < FLOOR_ROUND_TRIPS; i += 1) {
      const start = nowMs();
      await postOnce(agent, receiver.url(`${prefix}/floor`), headers, body);
      roundTrips.push(nowMs() - start);
    }
  } finally {
    agent.destroy();
  }

  const result = await cannon({ url: receiver.url(path), method: 'POST', body, headers, connections: 16 });
  return {
    ceiling: result['2xx'] / result.duration,
    ceilingErrors: result.errors + result.non2xx,
    floorP50: percentile(roundTrips, 0.5),
    floorP99: percentile(roundTrips, 0.99),
    bodyBytes: Buffer.byteLength(body),
    synthetic: !sample,
  };
}

export const HEC_EVENTS_PER_REQUEST = 100;

/**
 * The receiver's ceiling as a HEC: a plain client (autocannon, 16 keep-alive connections) pushing requests of
 * HEC_EVENTS_PER_REQUEST events made of the latest interaction.created envelope, on `${prefix}/hec-ceiling`.
 * `{ eventsPerSecond, requestsPerSecond, errors, bodyBytes, synthetic }`.
 */
export async function measureHecCeiling(receiver, prefix) {
  const sample = await receiver.sample();
  const envelope = sample?.body ?? syntheticEnvelope();
  const { event_type: type, timestamp } = JSON.parse(envelope);
  const line = `{"time":${Date.parse(timestamp) / 1000},"host":"bench","source":"ugs","sourcetype":"ugs:${type}","event":${envelope}}`;
  const body = Array.from({ length: HEC_EVENTS_PER_REQUEST }, () => line).join('\n');
  const token = randomBytes(16).toString('hex');
  const path = `${prefix}/hec-ceiling`;
  await receiver.setSecret(path, token);
  const result = await cannon({
    url: receiver.url(path), method: 'POST', body,
    headers: { 'content-type': 'application/json', authorization: `Splunk ${token}` }, connections: 16,
  });
  const requestsPerSecond = result['2xx'] / result.duration;
  return {
    eventsPerSecond: requestsPerSecond * HEC_EVENTS_PER_REQUEST, requestsPerSecond,
    errors: result.errors + result.non2xx, bodyBytes: Buffer.byteLength(body), synthetic: !sample,
  };
}
