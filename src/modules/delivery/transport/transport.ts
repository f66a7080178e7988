import type { Config } from '../../../config/config.js';

/*
 * The seam between the delivery worker and the ways a body travels. The HTTPS formats sent one
 * event per request (`standard`, `ocsf`) use the worker's `Sender` directly; a batched format
 * (`splunk_hec`, and `syslog` over TLS) declares `batched` limits and a transport that sends
 * several rendered bodies of one webhook at once. Nothing here imports the worker.
 */

/** The `User-Agent` of every delivery, whatever its format. */
export const USER_AGENT = 'UsageGovernance-Webhooks/1';

/** What one attempt gave: `status_code` 0 when no HTTP answer came. */
export interface AttemptOutcome {
  statusCode: number;
  responseTimeMs: number;
  success: boolean;
  error: string | null;
}

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * What a format makes of an HTTP answer (its status and the start of its body): whether it is a
 * success, and the error to record when not.
 */
export type AnswerReader = (statusCode: number, body: string) => { success: boolean; error: string | null };

/** The service's HTTPS client (`Sender`): SSRF guard, TLS verification, timeout, kept-alive connections. */
export interface HttpsClient {
  send(outgoing: OutgoingRequest, readAnswer?: AnswerReader): Promise<AttemptOutcome>;
}

/** Where a batch goes: the webhook's URL, and its token and custom headers in clear. */
export interface BatchTarget {
  url: string;
  auth_token: string;
  headers: Record<string, string>;
}

/** Sends the bodies of one batch (in order) and gives one outcome for all of them. Never throws. */
export interface BatchTransport {
  sendBatch(target: BatchTarget, bodies: readonly string[]): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** A format whose jobs of one webhook travel together, at most `maxEvents` bodies and `maxBytes` per batch. */
export interface BatchedFormat {
  maxEvents: number;
  maxBytes: number;
  /** Its transport, opened once by each worker and each API process (test sends), closed with them. */
  open(config: Readonly<Config>, https: HttpsClient): BatchTransport;
}

/**
 * The bodies cut into consecutive batches of at most `maxEvents` bodies and `maxBytes` bytes
 * (each body plus a one-byte separator); a body larger than `maxBytes` alone is a batch alone.
 */
export function splitBatches<T extends { body: string }>(items: readonly T[], limits: Pick<BatchedFormat, 'maxEvents' | 'maxBytes'>): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(item.body) + 1;
    if (current.length > 0 && (current.length >= limits.maxEvents || bytes + size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
