import { describe, expect, it } from 'vitest';
import { LaneLimits } from '../../src/modules/delivery/lanes.js';

const lane = { tenantId: '0190a0b0-0000-7000-8000-000000000001', webhookId: 'whk_a' };
const other = { tenantId: '0190a0b0-0000-7000-8000-000000000002', webhookId: 'whk_b' };
const freeOf = (limits: LaneLimits, which = lane) =>
  limits.freeSlots().find((entry) => entry.lane.webhookId === which.webhookId)?.free;

/** Starts `count` attempts of `which` as a claim that asked `asked` would. */
function claim(limits: LaneLimits, count: number, asked = limits.freeSlots(), which = lane) {
  for (let i = 0; i < count; i += 1) limits.started(which);
  limits.claimed(asked, Array.from({ length: count }, () => which));
}

describe('per-webhook concurrency (LaneLimits)', () => {
  it('starts at 4, gains one per success up to the maximum, halves per failure, never below 1', () => {
    const limits = new LaneLimits(10);
    expect(limits.initial).toBe(4);
    claim(limits, 4);
    expect(freeOf(limits)).toBe(0);
    for (let i = 0; i < 4; i += 1) limits.finished(lane, true);
    expect(freeOf(limits)).toBe(8); // nothing in flight, limit 8
    claim(limits, 8);
    for (let i = 0; i < 8; i += 1) limits.finished(lane, true);
    expect(freeOf(limits)).toBe(10); // capped at the maximum
    claim(limits, 10);
    for (let i = 0; i < 10; i += 1) limits.finished(lane, false);
    expect(freeOf(limits)).toBe(1); // 10 -> 5 -> 2 -> 1 -> 1 ...
    expect(new LaneLimits(2).initial).toBe(2);
  });

  it('offers a busy lane to claims only once a quarter of its limit is free', () => {
    const limits = new LaneLimits(40);
    claim(limits, 4);
    for (let i = 0; i < 4; i += 1) limits.finished(lane, true); // limit 8
    claim(limits, 8);
    limits.finished(lane, true); // limit 9, 7 in flight: 2 free, a quarter is 2
    expect(freeOf(limits)).toBe(2);
    const busy = new LaneLimits(40);
    claim(busy, 4);
    for (let i = 0; i < 4; i += 1) busy.finished(lane, true);
    for (let i = 0; i < 8; i += 1) busy.started(lane);
    busy.finished(lane, false); // limit 4, 7 in flight
    expect(freeOf(busy)).toBe(0);
  });

  it('asks for a claim after an attempt only while its lane may have more due jobs', () => {
    const limits = new LaneLimits(8);
    claim(limits, 4); // asked 4 (initial), got 4: there may be more
    expect(limits.finished(lane, true)).toBe(true);

    const drained = new LaneLimits(8);
    const asked = [{ lane, free: 4 }];
    for (let i = 0; i < 2; i += 1) drained.started(lane);
    drained.claimed(asked, [lane, lane]); // asked 4, got 2: nothing more was due
    expect(drained.finished(lane, true)).toBe(false);
  });

  it('keeps a busy lane\'s backlog through claims that offered it no slot', () => {
    const limits = new LaneLimits(40);
    claim(limits, 4);
    for (let i = 0; i < 4; i += 1) limits.finished(lane, true); // limit 8
    claim(limits, 8); // full: may have more
    limits.claimed(limits.freeSlots(), []); // a claim for others while this lane is busy (0 offered)
    for (let i = 0; i < 2; i += 1) limits.finished(lane, true); // limit 10, 6 in flight: 4 free
    expect(limits.finished(lane, true)).toBe(true);
  });

  it('counts slots freed while a claim was running: the next finished attempt asks again', () => {
    const limits = new LaneLimits(40);
    claim(limits, 4);
    for (let i = 0; i < 4; i += 1) limits.finished(lane, true); // limit 8, nothing in flight
    const asked = limits.freeSlots(); // 8 asked
    claim(limits, 4, asked); // a first part in flight before the claim returns...
    for (let i = 0; i < 4; i += 1) limits.finished(lane, true); // ...and done while it runs
    claim(limits, 8, asked); // the claim got all 8 it asked: limit 12, 8 in flight, 4 free
    expect(limits.finished(lane, true)).toBe(true);
  });

  it('keeps lanes apart and forgets a lane back at its start with nothing in flight', () => {
    const limits = new LaneLimits(8);
    claim(limits, 1, limits.freeSlots(), other);
    expect(freeOf(limits, other)).toBe(3);
    expect(freeOf(limits, lane)).toBeUndefined();
    limits.finished(other, false); // limit 2, nothing in flight: still remembered
    expect(freeOf(limits, other)).toBe(2);
    for (const expected of [3, 4]) {
      limits.started(other);
      limits.finished(other, true);
      if (expected < 4) expect(freeOf(limits, other)).toBe(expected);
    }
    expect(limits.freeSlots()).toEqual([]); // back to 4 with nothing in flight
  });
});
