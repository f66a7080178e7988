import { describe, expect, it } from 'vitest';
import { UsageFigures } from '../../src/modules/rollups/usage-figures.js';

const person = (n: number, high_risk: number, violations = 0) =>
  ({ n, user_id: `u${n}`, high_risk, violations, types: ['EMAIL'], platforms: ['openai'] });
const counted = (figures: UsageFigures) => figures.perUser(() => true).numbered.map((p) => [p.n, p.high_risk, p.violations]);

// A roll-up's counts are stored dense (one uint32 per user number) or sparse ((n, count) pairs) when that is smaller.
describe('UsageFigures counts', () => {
  it('stores a few users among many as (n, count) pairs, and reads them back', () => {
    const few = new UsageFigures();
    few.addRow(person(4_000, 3, 1));
    few.addRow(person(17, 2));
    const encoded = few.encode();
    expect(encoded.high_risk.byteLength).toBe(1 + 2 * 8);
    expect(encoded.high_risk.byteLength % 4).toBe(1);
    const back = new UsageFigures();
    back.addEncoded(encoded);
    expect(counted(back)).toEqual([[17, 2, 0], [4_000, 3, 1]]);
  });

  it('stores most users dense, and adds dense and sparse forms together', () => {
    const many = new UsageFigures();
    for (let n = 0; n < 10; n++) many.addRow(person(n, n + 1));
    const dense = many.encode();
    expect(dense.high_risk.byteLength).toBe(10 * 4);
    const few = new UsageFigures();
    few.addRow(person(3, 5));
    few.addRow(person(900, 1));
    const sum = new UsageFigures();
    sum.addEncoded(dense);
    sum.addEncoded(few.encode());
    expect(counted(sum).find(([n]) => n === 3)).toEqual([3, 9, 0]);
    expect(counted(sum).find(([n]) => n === 900)).toEqual([900, 1, 0]);
    expect(sum.usersOf('openai')).toBe(11);
  });
});

// A set of users is stored as a bitmap, or as its users' numbers then a 0 byte when that is smaller.
describe('UsageFigures sets', () => {
  const user = (n: number, platform: string) => ({ n, user_id: `u${n}`, high_risk: 0, violations: 0, types: [], platforms: [platform] });

  it('stores a few users among many as their numbers, a bitmap otherwise, and reads both back', () => {
    const figures = new UsageFigures();
    for (const n of [3, 4_000, 250]) figures.addRow(user(n, 'openai'));
    for (let n = 0; n < 40; n++) figures.addRow(user(n, 'deepseek'));
    const encoded = figures.encode();
    const sparse = encoded.platform_users[encoded.platforms.indexOf('openai')]!;
    expect(sparse.byteLength).toBe(3 * 4 + 1);
    expect(sparse.at(-1)).toBe(0);
    const dense = encoded.platform_users[encoded.platforms.indexOf('deepseek')]!;
    expect(dense.byteLength).toBe(5);
    expect(dense.at(-1)).not.toBe(0);
    const back = new UsageFigures();
    back.addEncoded(encoded);
    back.addEncoded({ platforms: ['openai'], platform_users: [dense] });
    expect(back.usersOf('openai')).toBe(40 + 2);
    expect(back.usersOf('deepseek')).toBe(40);
    const people = back.perUser(() => true).numbered.map((person) => person.n);
    expect(people).toEqual([...Array.from({ length: 40 }, (_, n) => n), 250, 4_000]);
  });

  it('adds another\'s figures: counts summed, sets joined', () => {
    const hour = new UsageFigures();
    const slot = new UsageFigures();
    slot.addRow(person(2, 1, 1));
    slot.addRow(user(700, 'deepseek'));
    hour.addRow(person(2, 2));
    hour.addFigures(slot);
    hour.addFigures(slot);
    expect(counted(hour)).toEqual([[2, 4, 2], [700, 0, 0]]);
    expect(hour.usersOf('deepseek')).toBe(1);
    expect(hour.usersOf('openai')).toBe(1);
  });
});
