import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Deps } from '../deps.js';
import { queueGauges } from './queue-gauges.js';
import { replicaGauges } from './replica-gauges.js';

/*
 * The service's Prometheus metrics. Labels are bounded sets (route templates, methods, status
 * codes, event types, outcomes): never an id, a tenant or a user, so that nothing of a tenant's
 * data reaches a scraper. What the process does (requests, stores, deliveries) is counted in one
 * registry per process, as Prometheus scrapes processes; what the store holds (pool, queues) is
 * read at scrape time by the application's own registry.
 */
const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });
const registers = [processRegistry];

export const serviceMetrics = {
  httpRequests: new Counter({
    name: 'ugs_http_requests_total', help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'], registers,
  }),
  httpDuration: new Histogram({
    name: 'ugs_http_request_duration_seconds', help: 'Time to answer an HTTP request',
    labelNames: ['route', 'method', 'status'], registers,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  }),
  interactionsStored: new Counter({
    name: 'ugs_interactions_stored_total', help: 'Interactions stored (committed)', registers,
  }),
  eventsEmitted: new Counter({
    name: 'ugs_events_emitted_total', help: 'Events written to the outbox, by type', labelNames: ['event_type'], registers,
  }),
  webhookAttempts: new Counter({
    name: 'ugs_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, http_error (a non-2xx answer), no_response (connection, TLS, timeout, blocked target)',
    labelNames: ['outcome'], registers,
  }),
  webhookAttemptDuration: new Histogram({
    name: 'ugs_webhook_attempt_duration_seconds', help: "A webhook attempt's request, from connecting to the answer",
    labelNames: ['outcome'], registers, buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  }),
  webhookDeliveryLatency: new Histogram({
    name: 'ugs_webhook_delivery_latency_seconds', help: 'From the event to its successful delivery (retries included)',
    registers, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200],
  }),
  mailsSent: new Counter({
    name: 'ugs_mail_sent_total', help: 'Emails handed to the mail server, by outcome (sent, failed)',
    labelNames: ['outcome'], registers,
  }),
};

/** The metrics exposition of this application: the process's counters and the store's gauges. */
export function metricsRegistry(deps: Deps): Registry {
  return Registry.merge([processRegistry, storeGauges(deps)]);
}

function storeGauges(deps: Deps): Registry {
  const registry = new Registry();
  const registers = [registry];
  const pool = () => deps.store.poolStats();
  new Gauge({
    name: 'ugs_store_connections', help: 'Store connections by state (PostgreSQL pool; the embedded store has one)',
    labelNames: ['state'], registers,
    collect() {
      const stats = pool();
      this.set({ state: 'in_use' }, stats.total - stats.idle);
      this.set({ state: 'idle' }, stats.idle);
    },
  });
  new Gauge({
    name: 'ugs_store_waiting_requests', help: 'Queries waiting for a free store connection', registers,
    collect() {
      this.set(pool().waiting);
    },
  });
  queueGauges(deps, registers);
  if (deps.store.replica) replicaGauges(deps.store.replica, registers);

  return registry;
}
