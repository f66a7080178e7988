import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../lib/schemas.js';
import { SCOPES } from '../../lib/context.js';
import { NextCursor, PageQuery } from '../../lib/pagination.js';

export const ScopeSchema = StringEnum(SCOPES);

export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
});

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key_prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  scopes: Type.Array(ScopeSchema),
  created_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
});
export type ApiKeyResponse = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Intersect([
  ApiKeySchema,
  Type.Object({ key: Type.String({ description: 'The secret key; shown only in this response' }) }),
]);

export const ApiKeyListQuery = Type.Object(PageQuery);
export const ApiKeyList = Type.Object({ api_keys: Type.Array(ApiKeySchema), total: Type.Integer(), next_cursor: NextCursor });
export const ApiKeyParams = Type.Object({ key_id: Type.String({ maxLength: 100 }) });
