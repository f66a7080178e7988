import type { components } from '@sdk/generated/openapi.js';

export type SignalValues = components['schemas']['Tenant']['signal_values'];

export const SIGNAL_VALUE_CHOICES: [SignalValues, string][] = [
  ['keep', 'Keep values (encrypted at rest)'],
  ['mask', 'Mask values: keep only the last 4 characters'],
];

export const SIGNAL_VALUES_APPLY = 'Applies to interactions recorded after the change; those recorded before keep their values as they were stored.';

export const signalValuesLabel = (setting: SignalValues) => SIGNAL_VALUE_CHOICES.find(([value]) => value === setting)?.[1] ?? setting;
