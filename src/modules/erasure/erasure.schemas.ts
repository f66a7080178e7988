import { Type } from 'typebox';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component } from '../../kernel/schemas.js';

export const EraseParams = Type.Object({ user_id: Type.String({ format: 'uuid', description: 'The user id the interactions carry' }) });
export const ErasureParams = Type.Object({ erasure_id: Type.String({ maxLength: 100 }) });

/** The proof of an erasure: counts and who asked, never the erased data. */
export const ErasureReceiptSchema = component('ErasureReceipt', Type.Object({
  erasure_id: Type.String({ format: 'uuid', description: 'Also the id of its audit entry' }),
  user_id: Type.String({ format: 'uuid' }),
  interactions_deleted: Type.Integer({ minimum: 0 }),
  alerts_deleted: Type.Integer({ minimum: 0 }),
  requested_by: Type.String({ format: 'uuid', description: 'The id of the admin who asked for the erasure' }),
  completed_at: Type.String({ format: 'date-time' }),
}), {
  description: "The receipt of an erasure of a person's interactions: counts and who asked, never the erased data.",
  example: {
    erasure_id: '0195b1e0-11aa-7b2c-9d3e-4f5a6b7c8d9e', user_id: EXAMPLE_IDS.user, interactions_deleted: 1843,
    alerts_deleted: 12, requested_by: EXAMPLE_IDS.admin, completed_at: '2026-03-02T10:12:44.120Z',
  },
});
