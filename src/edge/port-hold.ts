import { createServer, type Server } from 'node:net';
import { StartupError } from '../kernel/startup-error.js';

/** The API's port, bound before the store is opened and given up just before the app listens on it. */
export interface PortHold {
  release(): Promise<void>;
}

/**
 * Binds `host:port` at once, so that a port in use stops the start in a moment, before a new
 * embedded store is created and migrated (tens of seconds on a loaded machine). Connections that
 * arrive meanwhile are closed, as they would be refused with nothing listening. Handing the
 * bound socket itself over to the app would need Node's internal handles, and answering 503
 * meanwhile a second server in front of Fastify: a hold released right before the app's own
 * listen is the simple design, and another process taking the port in that instant fails the
 * start with the same line, as any taken port does.
 */
export async function holdPort(host: string, port: number): Promise<PortHold> {
  if (port === 0) return { release: async () => {} }; // any free port: nothing to hold
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw new StartupError(listenFailureLine(host, port, error));
  });
  return { release: () => closed(server) };
}

/** The one line a start prints when it cannot listen. */
export function listenFailureLine(host: string, port: number, error: unknown): string {
  return `cannot listen on ${host}:${port}: ${listenFailure(error)}`;
}

function listenFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') return 'the address is already in use (EADDRINUSE)';
  if (code === 'EACCES') return 'permission denied (EACCES)';
  if (code === 'EADDRNOTAVAIL') return 'no such address on this machine (EADDRNOTAVAIL)';
  return error instanceof Error ? error.message : String(error);
}

function closed(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
