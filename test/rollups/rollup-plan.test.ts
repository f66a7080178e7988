import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, SLOT_MS, planPeriod } from '../../src/modules/rollups/rollup-plan.js';

const DAY = 20_000; // 2024-10-04
const at = (day: number, hour = 0, minute = 0) => new Date(day * DAY_MS + hour * HOUR_MS + minute * 60_000);
const hoursOf = (day: number, from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ minutes: 60, slot: day * 24 + from + k }));
/** The 5-minute slots of `day`'s hour from minute `from` to minute `to`. */
const fivesOf = (day: number, hour: number, from: number, to: number) =>
  Array.from({ length: (to - from) / 5 }, (_, k) => ({ minutes: 5, slot: (day * DAY_MS + hour * HOUR_MS + (from + 5 * k) * 60_000) / SLOT_MS }));

// Which parts of a period come from day blocks, from hour roll-ups and from the rows.
describe('planPeriod', () => {
  const days = [DAY - 2, DAY - 1].map((start) => ({ level: 0, start }));

  it('reads the closed hours of the open day and of a partial first day from their roll-ups, the rest from the rows', () => {
    const hours = [...hoursOf(DAY - 3, 0, 24), ...hoursOf(DAY, 0, 14)];
    const plan = planPeriod({ start: at(DAY - 3, 9, 30), end: at(DAY, 15, 20) }, days, [], hours);
    expect(plan.blocks).toEqual(days);
    expect(plan.slots).toEqual([...hoursOf(DAY - 3, 10, 24), ...hoursOf(DAY, 0, 14)]);
    expect(plan.live).toEqual([
      { start: at(DAY - 3, 9, 30).getTime(), end: at(DAY - 3, 10).getTime() },
      { start: at(DAY, 14).getTime(), end: at(DAY, 15, 20).getTime() + 1 },
    ]);
  });

  it('takes the hours up to the last one rolled up when the period has no end', () => {
    const plan = planPeriod({ start: at(DAY - 2) }, days, [], hoursOf(DAY, 0, 3));
    expect(plan.slots).toEqual(hoursOf(DAY, 0, 3));
    expect(plan.live).toEqual([{ start: at(DAY, 3).getTime(), end: null }]);
  });

  it('reads a dirty day\'s hours from the rows, like the day itself', () => {
    const plan = planPeriod({ start: at(DAY - 2), end: at(DAY, 5) }, days, [DAY], hoursOf(DAY, 0, 5));
    expect(plan.slots).toEqual([]);
    expect(plan.live).toEqual([{ start: at(DAY).getTime(), end: at(DAY, 5).getTime() + 1 }]);
  });

  it('reads the 5-minute slots of the open hour in what the hours leave, the last minutes from the rows', () => {
    const slots = [...hoursOf(DAY, 0, 14), ...fivesOf(DAY, 14, 0, 45), ...fivesOf(DAY - 3, 9, 30, 60)];
    const plan = planPeriod({ start: at(DAY - 3, 9, 32), end: at(DAY, 14, 52) }, days, [], slots);
    expect(plan.slots).toEqual([...hoursOf(DAY, 0, 14), ...fivesOf(DAY - 3, 9, 35, 60), ...fivesOf(DAY, 14, 0, 45)]);
    expect(plan.live).toEqual([
      { start: at(DAY - 3, 9, 32).getTime(), end: at(DAY - 3, 9, 35).getTime() },
      { start: at(DAY - 3, 10).getTime(), end: at(DAY - 2).getTime() },
      { start: at(DAY, 14, 45).getTime(), end: at(DAY, 14, 52).getTime() + 1 },
    ]);
  });

  it('covers a partial day with the longest slots that fit: blocks of hours, hours, blocks of 5 minutes', () => {
    const slots = [720, 360, 180, 60, 30, 15, 5].flatMap((minutes) =>
      Array.from({ length: 1440 / minutes }, (_, k) => ({ minutes, slot: (DAY * 1440) / minutes + k })));
    const plan = planPeriod({ start: at(DAY, 0, 20), end: at(DAY, 23, 59) }, [], [], slots);
    const of = (minutes: number, from: number) => ({ minutes, slot: (DAY * 1440 + from) / minutes });
    expect(plan.slots).toEqual([
      of(360, 360), of(360, 720), of(180, 180), of(180, 1080), of(60, 60), of(60, 120), of(60, 1260), of(60, 1320),
      of(30, 30), of(30, 1380), of(15, 1410), of(5, 20), of(5, 25), of(5, 1425), of(5, 1430),
    ]);
    expect(plan.live).toEqual([{ start: at(DAY, 23, 55).getTime(), end: at(DAY, 23, 59).getTime() + 1 }]);
  });

  it('takes a slot read twice once', () => {
    const fives = fivesOf(DAY, 14, 0, 15);
    const plan = planPeriod({ start: at(DAY, 14), end: at(DAY, 14, 15) }, [], [], [...fives, ...fives]);
    expect(plan.slots).toEqual(fives);
  });

  it('reads the hours of a day without a roll-up of its own, before any day is rolled up', () => {
    const plan = planPeriod({ end: at(DAY, 2, 59) }, [], [], hoursOf(DAY, 0, 2));
    expect(plan.blocks).toEqual([]);
    expect(plan.slots).toEqual(hoursOf(DAY, 0, 2));
    expect(plan.live).toEqual([{ start: null, end: at(DAY).getTime() }, { start: at(DAY, 2).getTime(), end: at(DAY, 2, 59).getTime() + 1 }]);
  });
});
