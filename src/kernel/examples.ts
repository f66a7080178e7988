/** Identifiers the examples of the API reference share, so that one example's ids match another's. */
export const EXAMPLE_IDS = {
  tenant: '0195a3c2-6f0e-7b41-9d3a-1c2e4f6a8b01',
  user: '0195a3c2-7a11-7c52-8e4b-2d3f5a7b9c02',
  admin: '0195a3c2-7a11-7c52-8e4b-2d3f5a7b9c03',
  interaction: '0195b1d4-2e33-7f10-a1b2-3c4d5e6f7a04',
  policy: '0195a3c3-0b22-7d63-9f5c-3e4a6b8cad05',
  alert: '0195b1d4-2e40-7a21-b2c3-4d5e6f7a8b06',
  apiKey: 'key_0195a3c31c337e74a06d4f5b7c9dbe07',
  webhook: 'whk_0195a3c32d447f85b17e5a6c8daecf08',
  delivery: 'dlv_0195b1d43f5a7b32c3d45e6f7a8b9c09',
  event: 'evt_0195b1d4405b7c43d4e56f7a8b9cad10',
  contentHash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  requestId: '5d0f6a1e-3b2c-4d5e-8f90-1a2b3c4d5e6f',
} as const;
