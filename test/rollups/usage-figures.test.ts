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
