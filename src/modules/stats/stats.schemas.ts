import { type Static, Type } from 'typebox';
import { component, IsoDate, Nullable } from '../../lib/schemas.js';

export const StatsQuery = Type.Object({
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
});
export type StatsFilters = Static<typeof StatsQuery>;

const Count = Type.Integer({ minimum: 0 });

export const StatsSchema = component('Stats', Type.Object({
  start_date: Nullable(IsoDate),
  end_date: Nullable(IsoDate),
  interactions: Type.Object({
    total: Count,
    by_platform: Type.Array(Type.Object({ platform_id: Type.String(), count: Count }),
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
}), {
  description: 'Dashboard counts over a period (the whole history when no dates are given).',
  example: {
    start_date: '2026-03-01T00:00:00.000Z', end_date: null,
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
  },
});
export type StatsResponse = Static<typeof StatsSchema>;
