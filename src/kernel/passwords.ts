import { hash, verify } from '@node-rs/argon2';

/** Password complexity of the contract: 12+ characters, upper case, lower case and a digit. */
export function isStrongPassword(password: string): boolean {
  return password.length >= 12 && /[a-z]/.test(password) && /[A-Z]/.test(password) && /\d/.test(password);
}

export const PASSWORD_RULE = 'at least 12 characters, with upper case, lower case and digits';

// argon2id (the library's default algorithm) with OWASP's minimum memory and time settings.
const ARGON2_OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/** A missing hash still costs one verification, so unknown accounts answer as slowly as known ones. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('placeholder-Password-1');
  const target = passwordHash ?? (await dummyHash);
  const ok = await verify(target, password).catch(() => false);
  return ok && passwordHash !== null;
}
