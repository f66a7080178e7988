import { type Static, Type } from 'typebox';
import { EXAMPLE_IDS } from '../../kernel/examples.js';
import { component, Nullable, ref, StringEnum } from '../../kernel/schemas.js';
import { SCOPES } from '../../kernel/context.js';
import { NextCursor, PageQuery } from '../../kernel/paging/pagination.js';

export const ScopeSchema = StringEnum(SCOPES);

export const CreateApiKeyBody = component('ApiKeyCreate', Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
}), { description: 'A new API key: its name and what it may do.', example: { name: 'Proxy eu-west-1', scopes: ['interactions:write'] } });

const ApiKeyFields = {
  id: Type.String(),
  name: Type.String(),
  key_prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  scopes: Type.Array(ScopeSchema),
  created_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
};
const apiKeyExample = {
  id: EXAMPLE_IDS.apiKey, name: 'Proxy eu-west-1', key_prefix: 'ugk_x7Qm2L', scopes: ['interactions:write' as const],
  created_by: EXAMPLE_IDS.admin, created_at: '2026-02-01T10:00:00.000Z', last_used_at: '2026-03-02T09:15:27.000Z',
};

export const ApiKeySchema = component('ApiKey', Type.Object(ApiKeyFields), {
  description: 'A credential of a machine client (a proxy, an extension fleet); the key itself is never shown again.',
  example: apiKeyExample,
});
export type ApiKeyResponse = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = component('ApiKeyWithSecret', Type.Object({
  ...ApiKeyFields,
  key: Type.String({ description: 'The secret key (prefix `ugk_`); shown only in this response' }),
}), {
  description: 'A new API key with its secret, which only this response shows.',
  example: { ...apiKeyExample, last_used_at: null, key: 'ugk_x7Qm2LpV3nR8sT1uW4yZ6aB9cD0eF2gH5jK7mN' },
});

export const ApiKeyListQuery = Type.Object(PageQuery);
export const ApiKeyList = component('ApiKeyList', Type.Object({
  api_keys: Type.Array(ref(ApiKeySchema)), total: Type.Integer(), next_cursor: NextCursor,
}), { description: 'A page of active API keys.', example: { api_keys: [apiKeyExample], total: 1, next_cursor: null } });
export const ApiKeyParams = Type.Object({ key_id: Type.String({ maxLength: 100 }) });
