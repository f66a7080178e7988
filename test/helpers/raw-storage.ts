import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every way a text could sit in storage: as is, its digits alone, base64, base64url and hex. */
export function encodingsOf(text: string): string[] {
  const forms = new Set([text, text.replace(/\s/g, '')]);
  const digits = text.replace(/\D/g, '');
  if (digits.length >= 10) forms.add(digits);
  const encoded = [...forms].flatMap((form) => {
    const bytes = Buffer.from(form, 'utf8');
    return [bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url'), bytes.toString('hex'), bytes.toString('hex').toUpperCase()];
  });
  return [...forms, ...encoded];
}

/** Every file under `dir`, concatenated (latin1: one character per byte, whatever the bytes). */
function everyFileOf(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path).toString('latin1'))
    .join('\n');
}

/** What a backup gives away: a pg_dump of the database, or every file of the embedded store's folder. */
export function rawStorage(store: { databaseUrl: string } | { dataDir: string }): string {
  return 'databaseUrl' in store
    ? execFileSync('pg_dump', ['--no-owner', store.databaseUrl], { maxBuffer: 256 * 1024 * 1024 }).toString('latin1')
    : everyFileOf(store.dataDir);
}

/** Each secret found in `raw`, in any of its encodings, as `secret as form`. */
export function findIn(raw: string, secrets: readonly string[]): string[] {
  return secrets.flatMap((secret) => encodingsOf(secret).filter((form) => raw.includes(form)).map((form) => `${secret} as ${form}`));
}
