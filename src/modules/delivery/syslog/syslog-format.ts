import { deliverySecureContext } from '../sender.js';
import type { BatchedFormat } from '../transport/transport.js';
import { parseSyslogUrl } from './syslog-url.js';
import { SyslogTransport } from './transport.js';

/**
 * The `syslog` format as a batched one: the messages of a batch are written in one write on the
 * destination's persistent TLS connection, each in its octet-counting frame (RFC 5425), with the
 * same certificates, address rules and timeout as the HTTPS deliveries.
 */
export const syslogFormat: BatchedFormat = {
  maxEvents: 500,
  maxBytes: 1024 * 1024,
  open: (config) => {
    const transport = new SyslogTransport({
      secureContext: deliverySecureContext(config),
      allowPrivateTargets: config.webhooks.allowPrivateTargets,
      timeoutMs: config.webhooks.timeoutMs,
    });
    return {
      sendBatch: async (target, bodies) => {
        let destination;
        try {
          destination = parseSyslogUrl(target.url);
        } catch (error) {
          // A stored URL that is no longer valid: a failed attempt with its reason, never a crash of the worker.
          return { statusCode: 0, responseTimeMs: 0, success: false, error: error instanceof Error ? error.message : String(error) };
        }
        return transport.send(destination, bodies);
      },
      close: () => transport.close(),
    };
  },
};
