import { describe, expect, it } from 'vitest';
import { createTenantKeys, type TenantKeys } from '../../src/platform/crypto/envelope.js';
import { DecryptionError } from '../../src/platform/crypto/sealed-text.js';
import { OpenedSecrets, sealWebhookSecrets, type WebhookSecrets } from '../../src/modules/delivery/secrets.js';

/** A webhook row's secrets as the store returns them: sealed, `headers` an object of sealed values. */
const stored = (keys: TenantKeys, values: WebhookSecrets) => {
  const sealed = sealWebhookSecrets(keys, values);
  return { ...sealed, headers: JSON.parse(sealed.headers) as Record<string, string> };
};

const secrets: WebhookSecrets = {
  headers: { 'X-Api-Key': 'header-value-1' }, auth_token: 'token-1', signing_secret: 'whsec_current', previous_signing_secret: 'whsec_previous',
};

/** The tenant's keys, counting how often the data key is read (each decryption reads it). */
function countedKeys(keys: TenantKeys) {
  const counter = { reads: 0 };
  const counted = new Proxy(keys, {
    get(target, property, receiver) {
      if (property === 'dataKey') counter.reads += 1;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { keys: counted, counter };
}

describe('a worker\'s opened webhook secrets (OpenedSecrets)', () => {
  const keys = createTenantKeys('0190a0b0-0000-7000-8000-000000000001');
  const row = { id: 'whk_a', url: 'https://example.test/hook', ...stored(keys, secrets) };

  it('opens a webhook\'s sealed secrets once per stored version, keeping the row\'s other fields', () => {
    const opened = new OpenedSecrets();
    const { keys: counted, counter } = countedKeys(keys);
    expect(opened.open(counted, row)).toEqual({ ...row, ...secrets });
    const readsForFirst = counter.reads;
    expect(readsForFirst).toBeGreaterThan(0);
    expect(opened.open(counted, { ...row })).toEqual({ ...row, ...secrets });
    expect(counter.reads).toBe(readsForFirst);
  });

  it('does not open a webhook\'s texts moved to another tenant, even once opened for their own', () => {
    const opened = new OpenedSecrets();
    opened.open(keys, row);
    expect(() => opened.open(createTenantKeys('0190a0b0-0000-7000-8000-000000000002'), row)).toThrow(DecryptionError);
  });

  it('opens a rotated secret or a changed header anew', () => {
    const opened = new OpenedSecrets();
    opened.open(keys, row);
    const rotated = { ...row, ...stored(keys, { ...secrets, signing_secret: 'whsec_next', previous_signing_secret: 'whsec_current' }) };
    expect(opened.open(keys, rotated)).toMatchObject({ signing_secret: 'whsec_next', previous_signing_secret: 'whsec_current' });
    const header = { ...row, ...stored(keys, { ...secrets, headers: { 'X-Api-Key': 'header-value-2' } }) };
    expect(opened.open(keys, header).headers).toEqual({ 'X-Api-Key': 'header-value-2' });
  });

  it('returns a row of an earlier release (not sealed) as it is, and holds at most its bound of webhooks', () => {
    const opened = new OpenedSecrets(1);
    const legacy = { ...secrets, secrets_sealed: false };
    expect(opened.open(keys, legacy)).toBe(legacy);
    const other = { ...row, ...stored(keys, { ...secrets, auth_token: 'token-2' }) };
    const { keys: counted, counter } = countedKeys(keys);
    opened.open(counted, row);
    opened.open(counted, other); // the bound of one: `row` is dropped
    const before = counter.reads;
    expect(opened.open(counted, row).auth_token).toBe('token-1');
    expect(counter.reads).toBeGreaterThan(before);
  });
});
