import { describe, expect, it } from 'vitest';
import { rememberNewest } from '../../src/kernel/newest-first.js';

describe('rememberNewest', () => {
  it('keeps at most its bound, dropping the entry set longest ago; setting a key again makes it the newest', () => {
    const map = new Map<string, number>();
    rememberNewest(map, 'a', 1, 2);
    rememberNewest(map, 'b', 2, 2);
    rememberNewest(map, 'a', 3, 2); // a is now newer than b
    rememberNewest(map, 'c', 4, 2);
    expect([...map]).toEqual([['a', 3], ['c', 4]]);
  });
});
