/*
 * The check-digit algorithms of the identifiers risk signals name. Hand-written: each is a few
 * lines of arithmetic fixed by a standard, and the npm packages for them are either unmaintained
 * or bundle card-issuer rules the contract does not want (any 12-19 digit Luhn number is a card).
 */

/** Luhn (ISO/IEC 7812): from the right, every second digit doubled, the sum a multiple of 10. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The remainder of a long decimal number by `modulus`, read digit by digit (no BigInt needed). */
export function decimalMod(digits: string, modulus: number): number {
  let remainder = 0;
  for (const char of digits) remainder = (remainder * 10 + (char.charCodeAt(0) - 48)) % modulus;
  return remainder;
}
