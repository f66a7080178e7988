import { type Static, Type } from 'typebox';
import { IsoDate, Nullable } from '../../lib/schemas.js';

export const StatsQuery = Type.Object({
  start_date: Type.Optional(IsoDate),
  end_date: Type.Optional(IsoDate),
});
export type StatsFilters = Static<typeof StatsQuery>;

const Count = Type.Integer({ minimum: 0 });

export const StatsSchema = Type.Object({
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
});
export type StatsResponse = Static<typeof StatsSchema>;
