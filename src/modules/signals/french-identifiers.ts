import { decimalMod, luhnValid } from './checksums.js';

/*
 * French identifiers: the NIR (numéro de sécurité sociale) and the SIRET (establishment number).
 */

// sex (1-4, 7, 8), year, month (01-12, 20, 30-42 and 50-99 for unknown or provisional months),
// department (2 digits, or 2A/2B for Corsica), commune, order number, key.
const NIR_PATTERN = /^([1-478])(\d{2})(0[1-9]|1[0-2]|[2-9]\d)(\d{2}|2[AB])(\d{3})(\d{3})(\d{2})$/;

/** A NIR: 15 characters whose key is 97 - (the 13 first as a number mod 97), Corsica's 2A as 19 and 2B as 18. */
export function nirValid(value: string): boolean {
  const nir = value.replace(/[\s.-]/g, '').toUpperCase();
  const match = NIR_PATTERN.exec(nir);
  if (!match) return false;
  const month = Number(match[3]);
  if (month > 42 && month < 50) return false;
  const number = nir.slice(0, 13).replace('2A', '19').replace('2B', '18');
  const key = Number(match[7]);
  return key >= 1 && key <= 97 && key === 97 - decimalMod(number, 97);
}

/** La Poste's SIREN: its establishments are numbered by a digit sum multiple of 5, not by Luhn. */
const LA_POSTE_SIREN = '356000000';

/** A SIRET: 14 digits passing Luhn, or a La Poste establishment whose digits add up to a multiple of 5. */
export function siretValid(value: string): boolean {
  const siret = value.replace(/[\s.-]/g, '');
  if (!/^\d{14}$/.test(siret)) return false;
  if (luhnValid(siret)) return true;
  if (!siret.startsWith(LA_POSTE_SIREN)) return false;
  let sum = 0;
  for (const char of siret) sum += char.charCodeAt(0) - 48;
  return sum % 5 === 0;
}
