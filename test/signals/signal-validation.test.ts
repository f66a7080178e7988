import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateSignal } from '../../src/modules/signals/signal-validation.js';

/*
 * Property tests: valid identifiers are built here with their check digits computed by an
 * independent (BigInt) oracle, then one digit is changed to make them invalid. Luhn and mod 97
 * both catch every single-digit substitution, so each mutation must be refused.
 */

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((list) => list.join(''));

function luhnCheckDigit(payload: string): string {
  let sum = 0;
  [...payload].reverse().forEach((char, index) => {
    let digit = Number(char);
    if (index % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  });
  return String((10 - (sum % 10)) % 10);
}

/** Changes the digit at `index` (mod the length) to another digit. */
function changeDigit(value: string, index: number, shift: number): string {
  const at = index % value.length;
  const replaced = String((Number(value[at]) + shift) % 10);
  return value.slice(0, at) + replaced + value.slice(at + 1);
}
const shift = fc.integer({ min: 1, max: 9 });
const anyIndex = fc.nat();
const groupsOfFour = (value: string, separator: string) => value.replace(/(.{4})(?=.)/g, `$1${separator}`);

describe('CREDIT_CARD: 12-19 digits passing Luhn', () => {
  const card = digits(11, 18).map((payload) => payload + luhnCheckDigit(payload));

  it('accepts every Luhn-valid number of 12 to 19 digits, also with spaces or dashes', () => {
    fc.assert(fc.property(card, (number) => {
      expect(validateSignal('CREDIT_CARD', number)).toBe(true);
      expect(validateSignal('CREDIT_CARD', groupsOfFour(number, ' '))).toBe(true);
      expect(validateSignal('CREDIT_CARD', groupsOfFour(number, '-'))).toBe(true);
    }));
    expect(validateSignal('CREDIT_CARD', '4111 1111 1111 1111')).toBe(true);
  });

  it('refuses any single changed digit, other lengths, masks and letters', () => {
    fc.assert(fc.property(card, anyIndex, shift, (number, index, by) => {
      expect(validateSignal('CREDIT_CARD', changeDigit(number, index, by))).toBe(false);
    }));
    fc.assert(fc.property(fc.oneof(digits(1, 10), digits(19, 30)), (payload) => {
      expect(validateSignal('CREDIT_CARD', payload + luhnCheckDigit(payload))).toBe(false);
    }));
    for (const value of ['4111********1111', '4111-1111-1111-111a', '', '   ']) {
      expect(validateSignal('CREDIT_CARD', value)).toBe(false);
    }
  });
});

/** IBAN check digits: 98 - (BBAN + country letters as numbers + "00") mod 97. */
function ibanOf(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`].map((char) => (/\d/.test(char) ? char : String(char.charCodeAt(0) - 55))).join('');
  const check = 98n - (BigInt(numeric) % 97n);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}
const lettersAndDigits = (alphabet: string, length: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length }).map((list) => list.join(''));
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
// A few countries' BBAN structures (ISO 13616 registry) that have no national check digits of
// their own: Germany 18n, the Netherlands 4a10n, the United Kingdom 4a14n, Italy 1a10n12c.
const iban = fc.oneof(
  digits(18, 18).map((bban) => ibanOf('DE', bban)),
  fc.tuple(lettersAndDigits(UPPER, 4), digits(10, 10)).map(([bank, account]) => ibanOf('NL', bank + account)),
  fc.tuple(lettersAndDigits(UPPER, 4), digits(14, 14)).map(([bank, account]) => ibanOf('GB', bank + account)),
  fc.tuple(lettersAndDigits(UPPER, 1), digits(10, 10), lettersAndDigits(`${UPPER}0123456789`, 12))
    .map(([cin, bank, account]) => ibanOf('IT', cin + bank + account)),
);

describe('IBAN: the country length and structure, mod 97', () => {
  it('accepts IBANs with correct check digits, grouped by four or not, any case', () => {
    fc.assert(fc.property(iban, (value) => {
      expect(validateSignal('IBAN', value)).toBe(true);
      expect(validateSignal('IBAN', groupsOfFour(value, ' ').toLowerCase())).toBe(true);
    }));
    expect(validateSignal('IBAN', 'FR14 2004 1010 0505 0001 3M02 606')).toBe(true);
    expect(validateSignal('IBAN', 'GB82WEST12345698765432')).toBe(true);
  });

  it('refuses a changed digit, a wrong length for the country, an unknown country, a mask', () => {
    fc.assert(fc.property(iban, anyIndex, shift, (value, index, by) => {
      const positions = [...value].map((char, at) => (/\d/.test(char) && at >= 2 ? at : -1)).filter((at) => at >= 0);
      const at = positions[index % positions.length]!;
      expect(validateSignal('IBAN', changeDigit(value, at, by))).toBe(false);
    }));
    fc.assert(fc.property(digits(17, 17), (bban) => { expect(validateSignal('IBAN', ibanOf('DE', bban))).toBe(false); }));
    expect(validateSignal('IBAN', ibanOf('QQ', '123456789012'))).toBe(false);
    expect(validateSignal('IBAN', 'FR76 ****')).toBe(false);
    // Where a country defines national check digits they count too: France's RIB key.
    expect(validateSignal('IBAN', ibanOf('FR', '2004101005050001' + '3M026' + '07'))).toBe(false);
  });
});

/** NIR key: 97 - (the 13 first characters as a number, 2A as 19 and 2B as 18) mod 97. */
function nirOf(body: string): string {
  const numeric = body.replace('2A', '19').replace('2B', '18');
  return body + String(97n - (BigInt(numeric) % 97n)).padStart(2, '0');
}
const month = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 20, max: 42 }), fc.integer({ min: 50, max: 99 }))
  .map((value) => String(value).padStart(2, '0'));
const nir = fc.tuple(fc.constantFrom('1', '2'), digits(2, 2), month, fc.oneof(digits(2, 2), fc.constantFrom('2A', '2B')),
  digits(3, 3), digits(3, 3)).map((parts) => nirOf(parts.join('')));
const spacedNir = (value: string) =>
  [value.slice(0, 1), value.slice(1, 3), value.slice(3, 5), value.slice(5, 7), value.slice(7, 10), value.slice(10, 13), value.slice(13)].join(' ');

describe('NIR: French social security number with its key, Corsica included', () => {
  it('accepts NIRs whose key matches, with or without spaces', () => {
    fc.assert(fc.property(nir, (value) => {
      expect(validateSignal('NIR', value)).toBe(true);
      expect(validateSignal('NIR', spacedNir(value))).toBe(true);
    }));
    expect(validateSignal('NIR', '2 55 08 14 168 025 38')).toBe(true);
    expect(validateSignal('NIR', nirOf('184022A004123'))).toBe(true);
    expect(validateSignal('NIR', nirOf('184022B004123'))).toBe(true);
  });

  it('refuses a wrong key, a changed digit, a bad month or sex, the wrong length', () => {
    fc.assert(fc.property(nir, fc.integer({ min: 1, max: 96 }), (value, by) => {
      const key = Number(value.slice(13));
      const otherKey = String(((key - 1 + by) % 97) + 1).padStart(2, '0');
      expect(validateSignal('NIR', value.slice(0, 13) + otherKey)).toBe(false);
    }));
    fc.assert(fc.property(nir, anyIndex, shift, (value, index, by) => {
      const positions = [...value.slice(0, 13)].map((char, at) => (/\d/.test(char) && at > 0 ? at : -1)).filter((at) => at >= 0);
      const at = positions[index % positions.length]!;
      expect(validateSignal('NIR', changeDigit(value, at, by))).toBe(false);
    }));
    expect(validateSignal('NIR', nirOf('5550814168025'))).toBe(false); // sex 5
    expect(validateSignal('NIR', nirOf('2551314168025'))).toBe(false); // month 13
    expect(validateSignal('NIR', nirOf('2554514168025'))).toBe(false); // month 45
    expect(validateSignal('NIR', '25508141680253')).toBe(false);
  });
});

const siret = digits(13, 13).filter((payload) => !payload.startsWith('356000000')).map((payload) => payload + luhnCheckDigit(payload));

describe('SIRET: Luhn, and La Poste\'s digit-sum rule', () => {
  it('accepts Luhn-valid SIRETs, with spaces', () => {
    fc.assert(fc.property(siret, (value) => {
      expect(validateSignal('SIRET', value)).toBe(true);
      expect(validateSignal('SIRET', `${value.slice(0, 3)} ${value.slice(3, 6)} ${value.slice(6, 9)} ${value.slice(9)}`)).toBe(true);
    }));
  });

  it('accepts a La Poste establishment whose digits add up to a multiple of 5, even when Luhn fails', () => {
    const laPoste = digits(4, 4).map((nic) => {
      const payload = `356000000${nic}`;
      const sum = [...payload].reduce((total, char) => total + Number(char), 0);
      return payload + String((5 - (sum % 5)) % 5);
    });
    fc.assert(fc.property(laPoste, (value) => { expect(validateSignal('SIRET', value)).toBe(true); }));
    const failingLuhn = ['35600000000001', '35600000000010', '35600000000100']
      .filter((value) => luhnCheckDigit(value.slice(0, 13)) !== value[13]);
    expect(failingLuhn.length).toBeGreaterThan(0);
    for (const value of failingLuhn) expect(validateSignal('SIRET', value)).toBe(true);
    expect(validateSignal('SIRET', '35600000000048')).toBe(true); // the head office, valid by Luhn
    expect(validateSignal('SIRET', '35600000000002')).toBe(false); // digit sum 16, Luhn fails too
  });

  it('refuses a changed digit outside La Poste, other lengths, letters', () => {
    fc.assert(fc.property(siret, anyIndex, shift, (value, index, by) => {
      const changed = changeDigit(value, index, by);
      fc.pre(!changed.startsWith('356000000'));
      expect(validateSignal('SIRET', changed)).toBe(false);
    }));
    expect(validateSignal('SIRET', '7328293200007')).toBe(false);
    expect(validateSignal('SIRET', '7328293200007A')).toBe(false);
  });
});

describe('EMAIL and IP_ADDRESS: syntax', () => {
  it('accepts addresses and refuses what is not one', () => {
    for (const value of ['jane.doe@example.com', 'a+tag@sub.example.fr', 'x_y@example.co.uk', ' jane@example.com ']) {
      expect(validateSignal('EMAIL', value), value).toBe(true);
    }
    for (const value of ['jane.doe', 'jane@', '@example.com', 'jane@example', 'ja ne@example.com', 'j@@example.com']) {
      expect(validateSignal('EMAIL', value), value).toBe(false);
    }
  });

  it('accepts every IPv4 and IPv6 address, and refuses out-of-range or malformed ones', () => {
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (value) => { expect(validateSignal('IP_ADDRESS', value)).toBe(true); }));
    fc.assert(fc.property(fc.tuple(fc.integer({ min: 256, max: 999 }), fc.nat(255), fc.nat(255), fc.nat(255)), (parts) => {
      expect(validateSignal('IP_ADDRESS', parts.join('.'))).toBe(false);
    }));
    for (const value of ['10.0.0', '1.2.3.4.5', '::g', '12345::', 'localhost']) expect(validateSignal('IP_ADDRESS', value)).toBe(false);
  });
});

describe('types without a check', () => {
  it('are neither valid nor invalid', () => {
    for (const type of ['PHONE', 'PERSON_NAME', 'API_KEY', 'SSN', 'SOMETHING_NEW']) expect(validateSignal(type, 'anything')).toBeUndefined();
  });
});

describe('other types', () => {
  it('has no check for unknown types, even those named like members of every object', () => {
    for (const type of ['PHONE', 'constructor', 'valueOf', 'toString', '__proto__', 'hasOwnProperty', 'email']) {
      expect(validateSignal(type, 'x'), type).toBeUndefined();
    }
  });
});
