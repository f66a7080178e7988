import type { Config } from '../../config/config.js';
import type { WebhookFormat } from '../../kernel/vocabulary.js';
import { Sender } from './sender.js';
import { splunkHec } from './splunk-hec/hec-transport.js';
import { syslogFormat } from './syslog/syslog-format.js';
import type { BatchedFormat, BatchTransport } from './transport/transport.js';

/** The formats whose jobs of one webhook are sent together (docs/webhooks.md, "Batched formats"). */
const BATCHED_FORMATS: Partial<Record<WebhookFormat, BatchedFormat>> = {
  splunk_hec: splunkHec,
  syslog: syslogFormat,
};

export function batchedFormat(format: string): BatchedFormat | undefined {
  return Object.hasOwn(BATCHED_FORMATS, format) ? BATCHED_FORMATS[format as WebhookFormat] : undefined;
}

/** `[format, maxEvents]` of every batched format: what a claim may take per slot of their webhooks. */
export function batchSizes(): Array<{ format: string; maxEvents: number }> {
  return Object.entries(BATCHED_FORMATS).map(([format, spec]) => ({ format, maxEvents: spec.maxEvents }));
}

/** The HTTPS client and each batched format's transport, opened when first used, closed together. */
export class Transports {
  readonly sender: Sender;
  private readonly opened = new Map<string, BatchTransport>();

  constructor(private readonly config: Readonly<Config>) {
    this.sender = new Sender(config);
  }

  /** The transport of a batched format; undefined for the others. */
  batch(format: string): BatchTransport | undefined {
    const spec = batchedFormat(format);
    if (!spec) return undefined;
    let transport = this.opened.get(format);
    if (!transport) {
      transport = spec.open(this.config, this.sender);
      this.opened.set(format, transport);
    }
    return transport;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.opened.values()].map((transport) => transport.close()));
    await this.sender.close();
  }
}
