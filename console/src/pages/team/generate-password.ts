const LOWER = 'abcdefghijkmnpqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
const ALL = LOWER + UPPER + DIGITS;

/**
 * A random password meeting the service's rule (12+ characters, upper and lower case, digits):
 * 20 characters in groups of 5, with each class forced once, from the browser's CSPRNG.
 */
export function generatePassword(): string {
  const random = crypto.getRandomValues(new Uint32Array(20));
  const chars = Array.from(random, (n) => ALL[n % ALL.length]!);
  chars[0] = UPPER[random[0]! % UPPER.length]!;
  chars[7] = LOWER[random[7]! % LOWER.length]!;
  chars[14] = DIGITS[random[14]! % DIGITS.length]!;
  return [0, 5, 10, 15].map((start) => chars.slice(start, start + 5).join('')).join('-');
}
