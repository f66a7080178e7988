import { createHmac, hash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../../src/kernel/startup-error.js';
import {
  createTenantKeys, decryptValue, encryptValue, rewrapTenantKeys, unwrapTenantKeys, wrapTenantKeys,
} from '../../src/platform/crypto/envelope.js';
import {
  loadOrCreateKeyFile, MASTER_KEY_FILE, type MasterKey, MasterKeyError, masterKeyId, parseMasterKey,
} from '../../src/platform/crypto/master-key.js';
import { DecryptionError } from '../../src/platform/crypto/sealed-text.js';
import { maskSignalValue, normaliseSignalValue, signalFingerprint } from '../../src/platform/crypto/signal-values.js';
import { tempDir } from '../helpers/process.js';

const newMasterKey = (): MasterKey => parseMasterKey(randomBytes(32).toString('base64'));
/** Any well-formed text: code points of the whole Unicode range, and whole graphemes (emoji, accents). */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
);
const SIGNAL_TYPES = ['CREDIT_CARD', 'IBAN', 'NIR', 'SIRET', 'SSN', 'PHONE', 'EMAIL', 'API_KEY', 'PERSON_NAME', 'IP_ADDRESS'];

/** Every character an encrypted text is written with: any other one in its place must be noticed. */
const BASE64URL_AND_DOT = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';

describe('the master key', () => {
  const bytes = randomBytes(32);

  it('reads base64 in either alphabet, with or without padding, around white space', () => {
    const forms = [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=$/, ''),
      `${bytes.toString('base64url')}=`, `  ${bytes.toString('base64')}\n`];
    for (const form of forms) expect(parseMasterKey(form).key.equals(bytes), form).toBe(true);
  });

  it('is named by the first 8 bytes of its SHA-256, hex', () => {
    const expected = hash('sha256', bytes, 'hex').slice(0, 16);
    expect(parseMasterKey(bytes.toString('base64')).id).toBe(expected);
    expect(masterKeyId(bytes)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses anything else with one line that does not show the value', () => {
    const secret = randomBytes(32).toString('base64').replace(/=$/, '');
    const bad = ['', secret.slice(0, 42), `${secret}A`, `${secret}==`, `${secret.slice(0, 40)} ${secret.slice(40)}`,
      `${secret.slice(0, 42)}B`, `${secret.slice(0, 20)}+${secret.slice(21, 30)}_${secret.slice(31)}`,
      randomBytes(24).toString('base64'), randomBytes(33).toString('base64'), 'not a key at all'];
    for (const text of bad) {
      const error = captureError(() => parseMasterKey(text));
      expect(error, text).toBeInstanceOf(MasterKeyError);
      expect(error).toBeInstanceOf(StartupError);
      expect(error.message).toMatch(/^DATA_ENCRYPTION_KEY is not a valid data encryption key: expected 32 random bytes/);
      expect(error.message).not.toContain('\n');
      if (text.length > 4) expect(error.message).not.toContain(text.trim().slice(0, 8));
    }
  });
});

describe('the key file of the embedded store', () => {
  const dirs: string[] = [];
  const folder = () => {
    const dir = tempDir('ugs-crypto-');
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is created once with mode 0600, in a data folder made if missing, then read again', () => {
    const dataDir = join(folder(), 'data');
    const created = loadOrCreateKeyFile(dataDir);
    const path = join(dataDir, MASTER_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual([MASTER_KEY_FILE]);
    const written = readFileSync(path, 'utf8');
    expect(parseMasterKey(written).id).toBe(created.id);

    const again = loadOrCreateKeyFile(dataDir);
    expect(again.id).toBe(created.id);
    expect(again.key.equals(created.key)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(written);
  });

  it('is refused when others may read it', () => {
    const dataDir = folder();
    loadOrCreateKeyFile(dataDir);
    const path = join(dataDir, MASTER_KEY_FILE);
    chmodSync(path, 0o644);
    expect(() => loadOrCreateKeyFile(dataDir)).toThrow(new MasterKeyError(
      `the key file ${path} has mode 0644, expected 0600 (chmod 600 ${path})`));
  });

  it('is refused when it holds no valid key, without showing what it holds', () => {
    const dataDir = folder();
    const path = join(dataDir, MASTER_KEY_FILE);
    const content = randomBytes(16).toString('base64');
    writeFileSync(path, content);
    chmodSync(path, 0o600);
    const error = captureError(() => loadOrCreateKeyFile(dataDir));
    expect(error).toBeInstanceOf(MasterKeyError);
    expect(error.message.startsWith(`the key file ${path} is not a valid data encryption key`), error.message).toBe(true);
    expect(error.message).not.toContain(content.slice(0, 8));
  });
});

describe('values under a tenant key', () => {
  const tenantId = randomUUID();
  const keys = createTenantKeys(tenantId);
  const purpose = 'classification';

  it('decrypt to what was encrypted, for any text and purpose', () => {
    fc.assert(fc.property(anyText, fc.string({ minLength: 1, maxLength: 40 }), (value, anyPurpose) => {
      const encrypted = encryptValue(keys, anyPurpose, value);
      expect(encrypted).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,}$/);
      expect(decryptValue(keys, anyPurpose, encrypted)).toBe(value);
    }));
  });

  it('never encrypt one value twice the same way', () => {
    const value = '4111 1111 1111 1111';
    expect(encryptValue(keys, purpose, value)).not.toBe(encryptValue(keys, purpose, value));
  });

  it('never reuse an IV, across the blocks of random bytes they are cut from', () => {
    const ivs = Array.from({ length: 10_000 }, () => encryptValue(keys, purpose, 'v').split('.')[1]);
    expect(new Set(ivs).size).toBe(ivs.length);
  });

  it('do not decrypt for another tenant, purpose or tenant id bound to the same key', () => {
    const encrypted = encryptValue(keys, purpose, 'FR7630006000011234567890189');
    expect(() => decryptValue(createTenantKeys(randomUUID()), purpose, encrypted)).toThrow(DecryptionError);
    expect(() => decryptValue({ ...keys, tenantId: randomUUID() }, purpose, encrypted)).toThrow(DecryptionError);
    expect(() => decryptValue(keys, 'webhook.signing_secret', encrypted)).toThrow(
      new DecryptionError(`cannot decrypt for tenant ${tenantId} and purpose webhook.signing_secret: `
        + 'another key, tenant or purpose, or the text was altered'));
  });

  it('do not decrypt once any byte or character is altered', () => {
    fc.assert(fc.property(anyText, fc.nat(), fc.integer({ min: 1, max: 255 }), (value, index, flip) => {
      const [format, iv, sealed] = encryptValue(keys, purpose, value).split('.') as [string, string, string];
      const ivBytes = Buffer.from(iv, 'base64url');
      const sealedBytes = Buffer.from(sealed, 'base64url');
      flipByte(ivBytes, index, flip);
      flipByte(sealedBytes, index, flip);
      const withIv = `${format}.${ivBytes.toString('base64url')}.${sealed}`;
      const withSealed = `${format}.${iv}.${sealedBytes.toString('base64url')}`;
      expect(() => decryptValue(keys, purpose, withIv)).toThrow(DecryptionError);
      expect(() => decryptValue(keys, purpose, withSealed)).toThrow(DecryptionError);
    }));
    const encrypted = encryptValue(keys, purpose, 'jean.dupont@example.fr');
    for (let position = 0; position < encrypted.length; position += 1) {
      for (const replacement of BASE64URL_AND_DOT) {
        if (replacement === encrypted[position]) continue;
        const altered = encrypted.slice(0, position) + replacement + encrypted.slice(position + 1);
        expect(() => decryptValue(keys, purpose, altered), altered).toThrow(DecryptionError);
      }
    }
  });

  it('refuse texts that are not encrypted values', () => {
    for (const text of ['', 'v1', 'v1..', 'hello', `v2.${'A'.repeat(16)}.${'A'.repeat(24)}`, `v1.${'A'.repeat(16)}.AAAA`]) {
      expect(() => decryptValue(keys, purpose, text), text).toThrow(DecryptionError);
    }
  });

  it('refuse a lone surrogate, which has no UTF-8 form', () => {
    expect(() => encryptValue(keys, purpose, 'abc\uD800')).toThrow(TypeError);
  });
});

describe('tenant keys under the master key', () => {
  const tenantId = randomUUID();
  const keys = createTenantKeys(tenantId);
  const master = newMasterKey();
  const wrapped = wrapTenantKeys(keys, master);

  it('unwrap to the same keys, recording the master that wrapped them', () => {
    expect(wrapped.masterKeyId).toBe(master.id);
    expect(JSON.stringify(wrapped)).not.toContain(keys.dataKey.toString('base64url'));
    const unwrapped = unwrapTenantKeys(tenantId, wrapped, master);
    expect(unwrapped.dataKey.equals(keys.dataKey)).toBe(true);
    expect(unwrapped.fingerprintKey.equals(keys.fingerprintKey)).toBe(true);
  });

  it('do not unwrap for another tenant, swapped, or under another master', () => {
    expect(() => unwrapTenantKeys(randomUUID(), wrapped, master)).toThrow(DecryptionError);
    const swapped = { ...wrapped, dataKey: wrapped.fingerprintKey, fingerprintKey: wrapped.dataKey };
    expect(() => unwrapTenantKeys(tenantId, swapped, master)).toThrow(DecryptionError);
    const other = newMasterKey();
    expect(() => unwrapTenantKeys(tenantId, wrapped, other)).toThrow(
      new DecryptionError(`the keys of tenant ${tenantId} are wrapped under master key ${master.id}, not ${other.id}`));
    expect(() => unwrapTenantKeys(tenantId, { ...wrapped, masterKeyId: other.id }, other)).toThrow(DecryptionError);
  });

  it('survive a rotation: rewrapped under a new master, the same values and fingerprints, the old master unneeded', () => {
    const encrypted = encryptValue(keys, 'classification', 'john@example.com');
    const fingerprint = signalFingerprint(keys, 'EMAIL', 'john@example.com');
    const next = newMasterKey();
    const rotated = rewrapTenantKeys(tenantId, wrapped, master, next);
    expect(rotated.masterKeyId).toBe(next.id);
    expect(rotated.dataKey).not.toBe(wrapped.dataKey);

    const afterRotation = unwrapTenantKeys(tenantId, rotated, next);
    expect(afterRotation.dataKey.equals(keys.dataKey)).toBe(true);
    expect(afterRotation.fingerprintKey.equals(keys.fingerprintKey)).toBe(true);
    expect(decryptValue(afterRotation, 'classification', encrypted)).toBe('john@example.com');
    expect(signalFingerprint(afterRotation, 'EMAIL', 'john@example.com')).toBe(fingerprint);
    expect(() => unwrapTenantKeys(tenantId, rotated, master)).toThrow(DecryptionError);
  });
});

describe('fingerprints', () => {
  const keys = createTenantKeys(randomUUID());

  it('are fp_ and the HMAC-SHA256 of TYPE:normalised value under the tenant fingerprint key', () => {
    const expected = createHmac('sha256', keys.fingerprintKey).update('CREDIT_CARD:4111111111111111').digest('base64url');
    expect(signalFingerprint(keys, 'credit_card', '4111 1111 1111 1111')).toBe(`fp_${expected}`);
    expect(signalFingerprint(keys, 'EMAIL', 'a@b.co')).toMatch(/^fp_[A-Za-z0-9_-]{43}$/);
  });

  it('match within a tenant and differ across tenants, for any value', () => {
    fc.assert(fc.property(fc.constantFrom(...SIGNAL_TYPES), anyText, (type, value) => {
      const other = createTenantKeys(randomUUID());
      const sameKey = { fingerprintKey: Buffer.from(keys.fingerprintKey) };
      expect(signalFingerprint(keys, type, value)).toBe(signalFingerprint(sameKey, type.toLowerCase(), value));
      expect(signalFingerprint(other, type, value)).not.toBe(signalFingerprint(keys, type, value));
    }));
  });

  it('match for two spellings of one value, not for one value of two types', () => {
    const same = (type: string, a: string, b: string) =>
      expect(signalFingerprint(keys, type, a), `${a} ~ ${b}`).toBe(signalFingerprint(keys, type, b));
    same('CREDIT_CARD', '4111 1111 1111 1111', '4111-1111-1111-1111');
    same('IBAN', 'fr76 3000 6000 0112 3456 7890 189', 'FR7630006000011234567890189');
    same('EMAIL', ' John.Doe@Example.COM ', 'john.doe@example.com');
    same('SIRET', '732 829 320 00074', '73282932000074');
    same('API_KEY', '  sk-live-abc\n', 'sk-live-abc');
    expect(signalFingerprint(keys, 'API_KEY', 'Sk-Live-Abc')).not.toBe(signalFingerprint(keys, 'API_KEY', 'sk-live-abc'));
    expect(signalFingerprint(keys, 'SSN', '123456789')).not.toBe(signalFingerprint(keys, 'PHONE', '123456789'));
  });
});

describe('normalised values and masks', () => {
  it.each([
    ['CREDIT_CARD', '4111 1111 1111 1111', '4111111111111111'],
    ['NIR', '1 85 05 78 006 084 36', '185057800608436'],
    ['PHONE', '+33 (0)6 12.34.56.78', '330612345678'],
    ['IBAN', 'fr76 3000\t6000 0112 3456 7890 189', 'FR7630006000011234567890189'],
    ['email', '  John@Example.COM ', 'john@example.com'],
    ['PERSON_NAME', '  Jean Dupont ', 'Jean Dupont'],
  ])('%s %j is %j', (type, value, normalised) => {
    expect(normaliseSignalValue(type, value)).toBe(normalised);
  });

  it('hide all but the last 4 characters of the normalised value', () => {
    expect(maskSignalValue('CREDIT_CARD', '4111 1111 1111 1111')).toBe('************1111');
    expect(maskSignalValue('IBAN', 'fr76 3000 6000 0112 3456 7890 189')).toBe(`${'*'.repeat(23)}0189`);
    expect(maskSignalValue('EMAIL', 'J@X.FR')).toBe('**x.fr');
    expect(maskSignalValue('API_KEY', 'abc')).toBe('****');
    expect(maskSignalValue('API_KEY', 'abcd')).toBe('****');
    expect(maskSignalValue('PERSON_NAME', ' Zo\u00eb \u{1F600} ')).toBe('*o\u00eb \u{1F600}');
  });

  it('are never shorter than 4 and show nothing else', () => {
    fc.assert(fc.property(fc.constantFrom(...SIGNAL_TYPES), anyText, (type, value) => {
      const characters = [...normaliseSignalValue(type, value)];
      const mask = [...maskSignalValue(type, value)];
      expect(mask.length).toBe(Math.max(4, characters.length));
      const shown = characters.length > 4 ? characters.slice(-4) : [];
      expect(mask.slice(mask.length - shown.length)).toEqual(shown);
      expect(mask.slice(0, mask.length - shown.length).every((character) => character === '*')).toBe(true);
    }));
  });
});

function flipByte(bytes: Buffer, index: number, flip: number): void {
  const position = index % bytes.length;
  bytes[position] = bytes[position]! ^ flip;
}

function captureError(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
