import { type Static, Type } from 'typebox';
import { component, IsoDate, Nullable, StringEnum } from '../../kernel/schemas.js';

export const INTERVALS = ['hour', 'day'] as const;
export type Interval = (typeof INTERVALS)[number];

export const StatsQuery = Type.Object({
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
  interval: Type.Optional(StringEnum(INTERVALS, {
    description: 'Adds `series`, the interactions per UTC hour or day. With it, a missing `end_date` is now (or '
      + '`start_date`, if later) and a missing `start_date` makes 48 hour buckets or 30 day buckets ending with the '
      + 'end\'s; every number of the response covers that range. At most 1000 buckets: a longer range is a 400.',
  })),
});
export type StatsFilters = Static<typeof StatsQuery>;

const Count = Type.Integer({ minimum: 0 });

const PlatformCount = Type.Object({ platform_id: Type.String(), count: Count });

const SeriesBucket = Type.Object({
  start: Type.String({ format: 'date-time',
    description: 'The start of the UTC hour or day. The bucket counts the interactions from there to the next '
      + 'bucket\'s start that are within `start_date`..`end_date`: the first and last buckets may be partial.' }),
  total: Type.Integer({ minimum: 0, description: 'Interactions in the bucket: what `GET /interactions` counts over the same bounds' }),
  by_platform: Type.Array(PlatformCount, {
    description: 'The 10 most frequent platforms of the whole range (most frequent first, ties by id), the same '
      + 'list in every bucket, zero counts included',
  }),
  other: Type.Integer({ minimum: 0, description: 'Interactions of the platforms not in `by_platform`: `total` minus their sum' }),
});

const TopUser = Type.Object({
  user_id: Type.String({ format: 'uuid', description: 'The `user_id` of the interactions' }),
  high_risk: Type.Integer({ minimum: 1, description: 'Interactions of the user in the range with `risk_score >= 0.7`' }),
  total: Type.Integer({ minimum: 1, description: 'Interactions of the user in the range' }),
});

export const StatsSchema = component('Stats', Type.Object({
  start_date: Nullable(IsoDate),
  end_date: Nullable(IsoDate),
  interactions: Type.Object({
    total: Count,
    by_platform: Type.Array(PlatformCount,
      { description: 'The 100 most frequent platforms, most frequent first' }),
    by_source: Type.Object({ browser_extension: Count, proxy: Count, endpoint_agent: Count, api: Count }),
    by_risk_band: Type.Array(Type.Object({
      band: Type.String({ description: 'e.g. "0.2-0.4": risk scores >= 0.2 and < 0.4 (the last band includes 1)' }),
      min: Type.Number(),
      max: Type.Number(),
      count: Count,
    })),
    by_classification_type: Type.Array(Type.Object({ type: Type.String(), count: Count }), {
      description: 'Interactions having at least one classification of the type; the 100 most frequent types',
    }),
  }),
  alerts: Type.Object({
    open: Count,
    open_by_severity: Type.Object({ low: Count, medium: Count, high: Count, critical: Count }),
  }),
  series: Type.Union([
    Type.Object({
      interval: StringEnum(INTERVALS, { description: 'The `interval` requested' }),
      buckets: Type.Array(SeriesBucket, {
        description: 'Every hour or day from the one holding `start_date` to the one holding `end_date`, oldest first, '
          + 'empty ones included; their totals add up to `interactions.total`',
      }),
    }),
    Type.Null(),
  ], { description: 'Interactions per UTC hour or day over the range; null when no `interval` is given' }),
  top_users: Type.Union([
    Type.Array(TopUser),
    Type.Null(),
  ], {
    description: 'The 10 users with the most interactions of `risk_score >= 0.7` in the range (most first, ties by '
      + '`user_id`); users without any are left out, as are interactions without a `user_id`. Null when the range '
      + 'holds more than 200,000 such interactions (the one number counted from the rows: narrow the range)',
  }),
}), {
  description: 'Dashboard counts over a period (the whole history when no dates and no interval are given).',
  example: {
    start_date: '2026-03-01T00:00:00.000Z', end_date: '2026-03-02T23:59:59.999Z',
    interactions: {
      total: 1250,
      by_platform: [{ platform_id: 'chatgpt', count: 900 }, { platform_id: 'claude', count: 350 }],
      by_source: { browser_extension: 1100, proxy: 150, endpoint_agent: 0, api: 0 },
      by_risk_band: [
        { band: '0-0.2', min: 0, max: 0.2, count: 800 }, { band: '0.2-0.4', min: 0.2, max: 0.4, count: 200 },
        { band: '0.4-0.6', min: 0.4, max: 0.6, count: 120 }, { band: '0.6-0.8', min: 0.6, max: 0.8, count: 80 },
        { band: '0.8-1', min: 0.8, max: 1, count: 50 },
      ],
      by_classification_type: [{ type: 'EMAIL', count: 210 }, { type: 'IBAN', count: 12 }],
    },
    alerts: { open: 7, open_by_severity: { low: 0, medium: 2, high: 4, critical: 1 } },
    series: {
      interval: 'day',
      buckets: [
        { start: '2026-03-01T00:00:00.000Z', total: 700,
          by_platform: [{ platform_id: 'chatgpt', count: 480 }, { platform_id: 'claude', count: 220 }], other: 0 },
        { start: '2026-03-02T00:00:00.000Z', total: 550,
          by_platform: [{ platform_id: 'chatgpt', count: 420 }, { platform_id: 'claude', count: 130 }], other: 0 },
      ],
    },
    top_users: [
      { user_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', high_risk: 21, total: 140 },
      { user_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a6c', high_risk: 9, total: 310 },
    ],
  },
});
export type StatsResponse = Static<typeof StatsSchema>;
