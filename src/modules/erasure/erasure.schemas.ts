import { Type } from 'typebox';

export const EraseParams = Type.Object({ user_id: Type.String({ format: 'uuid', description: 'The user id the interactions carry' }) });
export const ErasureParams = Type.Object({ erasure_id: Type.String({ maxLength: 100 }) });

/** The proof of an erasure: counts and who asked, never the erased data. */
export const ErasureReceiptSchema = Type.Object({
  erasure_id: Type.String({ format: 'uuid' }),
  user_id: Type.String({ format: 'uuid' }),
  interactions_deleted: Type.Integer({ minimum: 0 }),
  alerts_deleted: Type.Integer({ minimum: 0 }),
  requested_by: Type.String({ format: 'uuid', description: 'The id of the admin who asked for the erasure' }),
  completed_at: Type.String({ format: 'date-time' }),
});
