import { describe, expect, it } from 'vitest';
import { prefixedId, uuidv7 } from '../../src/kernel/ids.js';

describe('uuidv7', () => {
  it('is a version 7, RFC 9562 variant UUID carrying its millisecond', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
    const id = uuidv7(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(now);
  });

  it('sorts by time across milliseconds and never repeats', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => uuidv7(1_700_000_000_000 + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 100; i < ids.length; i += 100) expect(ids[i - 1]! < ids[i]!).toBe(true);
  });

  it('makes prefixed ids without dashes', () => {
    expect(prefixedId('evt', 1_700_000_000_000)).toMatch(/^evt_018bcfe568007[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });
});
