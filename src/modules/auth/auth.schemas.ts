import { Type } from 'typebox';
import { UserSchema } from '../users/users.schemas.js';

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  tenant_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only needed when one email belongs to several tenants' })),
});

export const LoginResponse = Type.Object({
  token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_at: Type.String({ format: 'date-time' }),
  user: UserSchema,
});
