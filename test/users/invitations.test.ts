import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/kernel/crypto.js';
import { Harness, TEST_PASSWORD } from '../helpers/harness.js';
import { STORES } from '../helpers/stores.js';
import {
  audits, events, invite, latestInvitationToken, snapshot, STRONG_PASSWORD, uniqueEmail, userRow,
} from '../helpers/users-fixtures.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(STORES)('invitations [%s]', (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start(kind, { captureEvents: true, env: { PUBLIC_BASE_URL: 'https://gov.acme.test/', SESSION_TTL_SECONDS: '2592000' } });
  });
  afterAll(async () => h.close());

  describe('POST /users/invite', () => {
    it('creates a pending user, queues the email with a one-time link, emits user.invited and audits', async () => {
      const t = await h.tenant();
      const email = uniqueEmail('Mixed.Case');
      const before = h.clock.now().getTime();
      const r = await h.call('POST', '/api/v1/users/invite', {
        token: t.adminToken, body: { email, role: 'admin', display_name: 'Ada' },
      });
      expect(r.statusCode).toBe(201);
      const user = r.json();
      expect(user).toMatchObject({
        email, role: 'admin', status: 'pending', display_name: 'Ada', tenant_id: t.tenantId,
        invited_by: t.adminEmail, last_login: null,
      });
      expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
      const expires = new Date(user.invitation_expires_at).getTime();
      expect(expires - before).toBeGreaterThanOrEqual(7 * DAY - 1000);
      expect(expires - before).toBeLessThanOrEqual(7 * DAY + 5000);
      expect(user).not.toHaveProperty('password_hash');

      const mail = await h.db.selectFrom('mail_outbox').selectAll().where('tenant_id', '=', t.tenantId).execute();
      expect(mail).toHaveLength(1);
      expect(mail[0]).toMatchObject({ recipient: email, subject: 'You are invited to Acme' });
      expect(mail[0]!.body_text).toMatch(/https:\/\/gov\.acme\.test\/accept-invite\?token=inv_[A-Za-z0-9_-]{43}\n/);
      expect(mail[0]!.body_text).toContain(t.adminEmail);

      // Only the token's hash is stored.
      const token = await latestInvitationToken(h, t.tenantId, email);
      const stored = await h.db.selectFrom('invitations').selectAll().where('tenant_id', '=', t.tenantId).execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ user_id: user.id, token_hash: sha256Hex(token) });
      expect(JSON.stringify(stored)).not.toContain(token);

      expect(await events(h, t.tenantId)).toEqual([{ type: 'user.invited', data: user }]);
      const [entry] = await audits(h, t.tenantId);
      expect(entry).toMatchObject({
        action: 'user.invited', actor_type: 'user', actor_id: t.adminId, actor_label: t.adminEmail,
        target_type: 'user', target_id: user.id, details: { email, role: 'admin' },
      });
    });

    it('refuses a duplicate email, in any case, with 409 email_taken and writes nothing', async () => {
      const t = await h.tenant();
      const first = await invite(h, t);
      const before = await snapshot(h, t.tenantId);
      for (const email of [first.email, first.email.toUpperCase(), t.adminEmail.toUpperCase()]) {
        const r = await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { email, role: 'viewer' } });
        expect(r.statusCode).toBe(409);
        expect(r.json()).toMatchObject({ code: 'email_taken' });
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
    });

    it('allows the same email in another tenant', async () => {
      const t1 = await h.tenant();
      const t2 = await h.tenant();
      const { email } = await invite(h, t1);
      const r = await h.call('POST', '/api/v1/users/invite', { token: t2.adminToken, body: { email, role: 'viewer' } });
      expect(r.statusCode).toBe(201);
    });

    it('answers concurrent invites of one email with one 201 and one 409', async () => {
      const t = await h.tenant();
      const email = uniqueEmail();
      const results = await Promise.all([email, email.toUpperCase()].map((e) =>
        h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body: { email: e, role: 'viewer' } })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
      expect(results.find((r) => r.statusCode === 409)!.json().code).toBe('email_taken');
      expect((await events(h, t.tenantId)).filter((e) => e.type === 'user.invited')).toHaveLength(1);
    });

    it('validates the body', async () => {
      const t = await h.tenant();
      const bodies: Array<[unknown, string]> = [
        [{ role: 'viewer' }, 'body.email'],
        [{ email: 'not-an-email', role: 'viewer' }, 'body.email'],
        [{ email: 42, role: 'viewer' }, 'body.email'],
        [{ email: uniqueEmail() }, 'body.role'],
        [{ email: uniqueEmail(), role: 'owner' }, 'body.role'],
        [{ email: uniqueEmail(), role: 'viewer', display_name: 7 }, 'body.display_name'],
        [{ email: uniqueEmail(), role: 'viewer', display_name: 'x'.repeat(201) }, 'body.display_name'],
        [[], 'body'],
      ];
      const before = await snapshot(h, t.tenantId);
      for (const [body, path] of bodies) {
        const r = await h.call('POST', '/api/v1/users/invite', { token: t.adminToken, body });
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json().code).toBe('validation_error');
        expect(r.json().details[0].path).toBe(path);
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
    });
  });

  describe('POST /auth/accept-invite', () => {
    it('activates the user, logs them in like login does, emits user.activated and audits', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t, { display_name: 'Old name' });
      const r = await h.call('POST', '/api/v1/auth/accept-invite', {
        body: { token: invited.token, password: STRONG_PASSWORD, display_name: 'Grace' },
      });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.token).toMatch(/^ugt_/);
      expect(body.token_type).toBe('Bearer');
      expect(new Date(body.expires_at).getTime()).toBeGreaterThan(Date.now());
      expect(body.user).toMatchObject({
        id: invited.id, status: 'active', display_name: 'Grace', tenant_id: t.tenantId, invited_by: t.adminEmail,
      });
      expect(body.user.last_login).not.toBeNull();
      expect(body.user).not.toHaveProperty('invitation_expires_at');

      const me = await h.call('GET', '/api/v1/users/me', { token: body.token });
      expect(me.json()).toMatchObject({ id: invited.id, status: 'active' });
      expect(await h.login(invited.email, STRONG_PASSWORD)).toMatch(/^ugt_/);

      const activated = (await events(h, t.tenantId)).filter((e) => e.type === 'user.activated');
      expect(activated).toEqual([{ type: 'user.activated', data: body.user }]);
      const accepted = (await audits(h, t.tenantId)).find((a) => a.action === 'user.invitation_accepted');
      expect(accepted).toMatchObject({ actor_id: invited.id, actor_label: invited.email, target_id: invited.id });
      const row = await userRow(h, t.tenantId, invited.id);
      expect(row!.invitation_expires_at).toBeNull();
      expect(await h.db.selectFrom('invitations').selectAll().where('tenant_id', '=', t.tenantId).execute()).toEqual([]);
    });

    it('keeps the invited display name when none is given', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t, { display_name: 'Invited Name' });
      const r = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
      expect(r.json().user.display_name).toBe('Invited Name');
    });

    it('refuses a used token and an unknown token with 404', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      const first = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
      expect(first.statusCode).toBe(200);
      const before = await snapshot(h, t.tenantId);
      for (const token of [invited.token, 'inv_unknown', 'x']) {
        const r = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token, password: STRONG_PASSWORD } });
        expect(r.statusCode).toBe(404);
        expect(r.json().code).toBe('not_found');
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
    });

    it('accepts a token once when it is used twice at the same time', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      const results = await Promise.all([1, 2].map(() =>
        h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 404]);
      expect((await events(h, t.tenantId)).filter((e) => e.type === 'user.activated')).toHaveLength(1);
    });

    it('refuses an invitation older than 7 days with 410; the user stays pending', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      h.clock.advance(7 * DAY + 1000);
      try {
        const before = await snapshot(h, t.tenantId);
        const r = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
        expect(r.statusCode).toBe(410);
        expect(r.json().code).toBe('invitation_expired');
        expect(await snapshot(h, t.tenantId)).toEqual(before);
        const user = await h.call('GET', `/api/v1/users/${invited.id}`, { token: t.adminToken });
        expect(user.json()).toMatchObject({ status: 'pending', invitation_expires_at: invited.body.invitation_expires_at });
      } finally {
        h.clock.reset();
      }
    });

    it('still accepts just before the 7 days are over', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      h.clock.advance(7 * DAY - 60_000);
      try {
        const r = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
        expect(r.statusCode).toBe(200);
      } finally {
        h.clock.reset();
      }
    });

    it('refuses a weak password with 400 and leaves the invitation usable', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      const before = await snapshot(h, t.tenantId);
      for (const password of ['Short1a', 'alllowercase123', 'ALLUPPERCASE123', 'NoDigitsAtAllHere']) {
        const r = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password } });
        expect(r.statusCode).toBe(400);
        expect(r.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'body.password' }] });
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
      const ok = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
      expect(ok.statusCode).toBe(200);
    });

    it('validates the body', async () => {
      for (const body of [{}, { token: 'inv_x' }, { password: STRONG_PASSWORD }, { token: 5, password: STRONG_PASSWORD },
        { token: '', password: STRONG_PASSWORD }, { token: 'inv_x', password: STRONG_PASSWORD, display_name: false }]) {
        const r = await h.call('POST', '/api/v1/auth/accept-invite', { body });
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json().code).toBe('validation_error');
      }
    });

    it('makes the invited user unable to log in before accepting', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      const r = await h.call('POST', '/api/v1/auth/login', { body: { email: invited.email, password: TEST_PASSWORD } });
      expect(r.statusCode).toBe(401);
    });
  });

  describe('POST /users/{id}/resend-invitation', () => {
    it('issues a new 7-day link, invalidates the old one and audits', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      h.clock.advance(3 * DAY);
      try {
        const r = await h.call('POST', `/api/v1/users/${invited.id}/resend-invitation`, { token: t.adminToken });
        expect(r.statusCode).toBe(200);
        const user = r.json();
        expect(user).toMatchObject({ id: invited.id, status: 'pending', invited_by: t.adminEmail });
        expect(new Date(user.invitation_expires_at).getTime() - new Date(invited.body.invitation_expires_at as string).getTime())
          .toBeGreaterThanOrEqual(3 * DAY - 1000);
        const newToken = await latestInvitationToken(h, t.tenantId, invited.email);
        expect(newToken).not.toBe(invited.token);
        expect(await h.db.selectFrom('mail_outbox').select('id').where('tenant_id', '=', t.tenantId).execute()).toHaveLength(2);

        const old = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: invited.token, password: STRONG_PASSWORD } });
        expect(old.statusCode).toBe(404);
        const resent = (await audits(h, t.tenantId)).find((a) => a.action === 'user.invitation_resent');
        expect(resent).toMatchObject({ actor_id: t.adminId, target_id: invited.id });
        // Resending is not a new invitation: no second user.invited.
        expect((await events(h, t.tenantId)).map((e) => e.type)).toEqual(['user.invited']);

        h.clock.advance(5 * DAY); // 8 days after the first link, 5 after the new one
        const ok = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token: newToken, password: STRONG_PASSWORD } });
        expect(ok.statusCode).toBe(200);
      } finally {
        h.clock.reset();
      }
    });

    it('revives an expired invitation', async () => {
      const t = await h.tenant();
      const invited = await invite(h, t);
      h.clock.advance(8 * DAY);
      try {
        expect((await h.call('POST', `/api/v1/users/${invited.id}/resend-invitation`, { token: t.adminToken })).statusCode).toBe(200);
        const token = await latestInvitationToken(h, t.tenantId, invited.email);
        const ok = await h.call('POST', '/api/v1/auth/accept-invite', { body: { token, password: STRONG_PASSWORD } });
        expect(ok.statusCode).toBe(200);
      } finally {
        h.clock.reset();
      }
    });

    it('refuses active and inactive users with 409 invalid_state', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const disabled = await h.user(t, 'viewer');
      await h.call('PATCH', `/api/v1/users/${disabled.id}/status`, { token: t.adminToken, body: { status: 'inactive' } });
      const before = await snapshot(h, t.tenantId);
      for (const id of [viewer.id, disabled.id, t.adminId]) {
        const r = await h.call('POST', `/api/v1/users/${id}/resend-invitation`, { token: t.adminToken });
        expect(r.statusCode).toBe(409);
        expect(r.json().code).toBe('invalid_state');
      }
      expect(await snapshot(h, t.tenantId)).toEqual(before);
    });
  });
});
