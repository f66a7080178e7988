import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

/** Makes the app listen on a free loopback port (closed with the app); returns its origin. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}
