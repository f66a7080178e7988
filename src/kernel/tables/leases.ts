import type { Timestamp } from './columns.js';

/** A job one process at a time does, and which process holds it until when (migration 0020). */
export interface ServiceLeasesTable {
  /** The job: `retention`, `upkeep`, `bootstrap`. */
  name: string;
  /** Which one of the job's (a tenant's id), or ''. */
  key: string;
  holder: string;
  expires_at: Timestamp;
}

/** Table types of the service's leases, global by nature; merged into `Database`. */
export interface LeasesTables {
  service_leases: ServiceLeasesTable;
}
