import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_foundation.js';

/** Every migration, in order. Add new ones at the end; never rename or edit a released one. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
};
