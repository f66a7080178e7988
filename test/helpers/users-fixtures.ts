import { expect } from 'vitest';
import { capturedEvents, type Harness, type TestTenant } from './harness.js';

export const STRONG_PASSWORD = 'New-Passw0rd-2024';

export interface Invited {
  id: string;
  email: string;
  /** The one-time token, read from the queued invitation email. */
  token: string;
  body: Record<string, unknown>;
}

let sequence = 0;
export const uniqueEmail = (prefix = 'invitee') => `${prefix}${(sequence += 1)}-${Date.now()}@acme.test`;

/** Invites through the API and reads the token from the queued email (no SMTP needed). */
export async function invite(h: Harness, t: TestTenant, body: Record<string, unknown> = {}): Promise<Invited> {
  const email = (body.email as string | undefined) ?? uniqueEmail();
  const response = await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { role: 'viewer', email, ...body } });
  expect(response.statusCode, response.body).toBe(201);
  const created = response.json() as Record<string, unknown>;
  return { id: created.id as string, email, token: await latestInvitationToken(h, t.tenantId, email), body: created };
}

export function tokenFromText(text: string): string {
  const match = /\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(text);
  if (!match) throw new Error(`no invitation link in: ${text}`);
  return decodeURIComponent(match[1]!);
}

export async function latestInvitationToken(h: Harness, tenantId: string, email: string): Promise<string> {
  const mails = await h.db
    .selectFrom('mail_outbox')
    .select('body_text')
    .where('tenant_id', '=', tenantId)
    .where('recipient', '=', email)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  if (!mails[0]) throw new Error(`no invitation email to ${email}`);
  return tokenFromText(mails[0].body_text);
}

/** The events the tenant's changes emitted (the harness must capture events). */
export async function events(h: Harness, tenantId: string) {
  return capturedEvents(h, tenantId);
}

export async function audits(h: Harness, tenantId: string, prefix = 'user.') {
  const rows = await h.db
    .selectFrom('audit_log')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('action', 'like', `${prefix}%`)
    .orderBy('occurred_at')
    .orderBy('id')
    .execute();
  return rows;
}

export async function userRow(h: Harness, tenantId: string, id: string) {
  return h.db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** What a test can check to see that a refused request changed nothing. */
export async function snapshot(h: Harness, tenantId: string) {
  const [users, evts, audit, mail, sessions] = await Promise.all([
    h.db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute(),
    events(h, tenantId),
    audits(h, tenantId),
    h.db.selectFrom('mail_outbox').select('id').where('tenant_id', '=', tenantId).execute(),
    h.db.selectFrom('sessions').select(['id', 'revoked_at']).where('tenant_id', '=', tenantId).orderBy('id').execute(),
  ]);
  return { users, events: evts, audit: audit.length, mail: mail.length, sessions };
}
