import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

/** Makes the app listen on loopback (a free port unless given; closed with the app); returns its origin. */
export async function listen(app: FastifyInstance, port = 0): Promise<string> {
  await app.listen({ port, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}
