import type { Logger } from 'pino';
import type { Deps } from './platform/deps.js';
import { MailWorker } from './modules/mail/mail.worker.js';
import { logMailer, smtpMailer } from './modules/mail/mailer.js';
import { DeliveryWorker } from './modules/delivery/delivery.worker.js';
import { RetentionWorker } from './modules/delivery/history-purge.js';
import { CountsCompactionWorker } from './modules/counts/compaction.js';
import { DataRetentionWorker } from './modules/retention/data-retention.js';
import { LegacySealingWorker } from './modules/data-protection/legacy-sealing.js';
import { UsageRollupWorker } from './modules/rollups/usage-rollups.job.js';
import { StoreUpkeepWorker } from './platform/store/upkeep.js';

/** Something that runs beside the API until stopped. */
export interface BackgroundWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerOptions {
  /** How often workers look for due work when nothing woke them (ms). */
  pollIntervalMs?: number;
  /** How often the delivery history purge runs (ms). */
  retentionIntervalMs?: number;
  /** How often tenants' interaction and audit retention is applied (ms). */
  dataRetentionIntervalMs?: number;
  /** How often closed days are rolled up for platform usage and people at risk (ms). */
  rollupIntervalMs?: number;
  /** How often the tables' statistics and dead rows are checked (ms). */
  upkeepIntervalMs?: number;
}

/** The background workers `npm start` runs beside the API (and `cli worker` runs alone). */
export function createWorkers(deps: Deps, logger: Logger, options: WorkerOptions = {}): BackgroundWorker[] {
  const mailer = deps.config.mail.smtpUrl
    ? smtpMailer(deps.config.mail.smtpUrl, deps.config.mail.from)
    : logMailer(logger.child({ worker: 'mail' }));
  return [
    new MailWorker(deps.store, mailer, deps.clock, logger.child({ worker: 'mail' }), options.pollIntervalMs),
    new DeliveryWorker(deps, logger.child({ worker: 'webhooks' }), { pollIntervalMs: options.pollIntervalMs }),
    new RetentionWorker(deps, logger.child({ worker: 'retention' }), { intervalMs: options.retentionIntervalMs }),
    new CountsCompactionWorker(deps, logger.child({ worker: 'counts' }), options.pollIntervalMs),
    new DataRetentionWorker(deps, logger.child({ worker: 'data-retention' }), options.dataRetentionIntervalMs),
    new LegacySealingWorker(deps, logger.child({ worker: 'sealing' })),
    new UsageRollupWorker(deps, logger.child({ worker: 'usage-rollups' }), options.rollupIntervalMs),
    new StoreUpkeepWorker(deps.store, logger.child({ worker: 'upkeep' }), options.upkeepIntervalMs),
  ];
}
