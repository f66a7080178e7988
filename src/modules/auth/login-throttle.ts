import type { Kysely } from 'kysely';
import type { Database } from '../../kernel/tables/database.js';
import { AppError } from '../../kernel/errors.js';

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** One client address may fail this many times more than one account before it is throttled. */
export const ADDRESS_FACTOR = 10;

export const accountSubject = (email: string) => `account:${email.toLowerCase()}`;
export const addressSubject = (ip: string) => `address:${ip}`;

/**
 * Failed logins are counted in the store, so every replica sees the same count. An account is
 * throttled after `maxFailures` in 15 minutes, a client address after ten times that.
 */
export async function assertNotThrottled(
  db: Kysely<Database>,
  subjects: { account: string; address: string },
  maxFailures: number,
  now: Date,
): Promise<void> {
  const since = new Date(now.getTime() - THROTTLE_WINDOW_MS);
  const rows = await db
    .selectFrom('login_failures')
    .select(['subject', (eb) => eb.fn.countAll<number>().as('failures'), (eb) => eb.fn.min('failed_at').as('oldest')])
    .where('subject', 'in', [subjects.account, subjects.address])
    .where('failed_at', '>', since)
    .groupBy('subject')
    .execute();
  for (const row of rows) {
    const limit = row.subject === subjects.account ? maxFailures : maxFailures * ADDRESS_FACTOR;
    if (Number(row.failures) >= limit) {
      const oldest = new Date(row.oldest as Date).getTime();
      const retryAfterSeconds = Math.max(1, Math.ceil((oldest + THROTTLE_WINDOW_MS - now.getTime()) / 1000));
      throw new AppError('rate_limited', 'Too many failed logins; try again later', { retryAfterSeconds });
    }
  }
}

export async function recordFailure(
  db: Kysely<Database>,
  subjects: { account: string; address: string },
  now: Date,
): Promise<void> {
  await db
    .insertInto('login_failures')
    .values([
      { subject: subjects.account, failed_at: now },
      { subject: subjects.address, failed_at: now },
    ])
    .execute();
  await db
    .deleteFrom('login_failures')
    .where('subject', 'in', [subjects.account, subjects.address])
    .where('failed_at', '<=', new Date(now.getTime() - THROTTLE_WINDOW_MS))
    .execute();
}

export async function clearAccountFailures(db: Kysely<Database>, account: string): Promise<void> {
  await db.deleteFrom('login_failures').where('subject', '=', account).execute();
}
