import { Type } from 'typebox';
import { component, ref } from '../../lib/schemas.js';
import { UserSchema } from '../users/users.schemas.js';

export const LoginBody = component('LoginRequest', Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  tenant_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only needed when one email belongs to several tenants' })),
}), { description: 'Credentials of a user.', example: { email: 'jane.doe@example.com', password: 'Correct-Horse-42-Battery' } });

export const LoginResponse = component('Session', Type.Object({
  token: Type.String({ description: 'Session token (prefix `ugt_`): send it as `Authorization: Bearer <token>`' }),
  token_type: Type.Literal('Bearer'),
  expires_at: Type.String({ format: 'date-time' }),
  user: ref(UserSchema),
}), {
  description: 'A new session: its bearer token and the user it belongs to.',
  example: {
    token: 'ugt_3q2-7wAAAAC5Yk1tZ0xGc0p0bWJ2aVhDSkRqQ2c', token_type: 'Bearer', expires_at: '2026-03-03T08:59:12.000Z',
    user: UserSchema.examples[0],
  },
});
