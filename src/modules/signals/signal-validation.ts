import { isIP } from 'node:net';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import validator from 'validator';
import { luhnValid } from './checksums.js';
import { nirValid, siretValid } from './french-identifiers.js';

/**
 * Whether a detected value is what its type says: `true` or `false` for the types the service can
 * check, `undefined` for the others (PHONE, PERSON_NAME, API_KEY...: nothing to check them against).
 */
export function validateSignal(type: string, value: string): boolean | undefined {
  // Own keys only: a type named `constructor` or `valueOf` is just an unknown type.
  return Object.hasOwn(CHECKS, type) ? CHECKS[type]!(value.trim()) : undefined;
}

export const VALIDATED_TYPES = ['CREDIT_CARD', 'IBAN', 'NIR', 'SIRET', 'EMAIL', 'IP_ADDRESS'] as const;

const CHECKS: Record<string, (value: string) => boolean> = {
  CREDIT_CARD: (value) => {
    const digits = value.replace(/[\s-]/g, '');
    return /^\d{12,19}$/.test(digits) && luhnValid(digits);
  },
  // ISO 13616: the country's length and structure, and the mod-97 check digits.
  IBAN: (value) => isValidIBAN(electronicFormatIBAN(value) ?? ''),
  NIR: nirValid,
  SIRET: siretValid,
  EMAIL: (value) => validator.isEmail(value),
  IP_ADDRESS: (value) => isIP(value) !== 0,
};
