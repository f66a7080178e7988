import { Type } from 'typebox';
import { component } from '../../kernel/schemas.js';

export const LoginBody = component('LoginRequest', Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  tenant_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only needed when one email belongs to several tenants' })),
}), { description: 'Credentials of a user.', example: { email: 'jane.doe@example.com', password: 'Correct-Horse-42-Battery' } });
