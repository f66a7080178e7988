import { chmodSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { relative, resolve } from 'node:path';

/**
 * The Unix socket, in the embedded store's folder, of the process that has the store open. It
 * is how two processes know of each other: one process may open the folder at a time (a second
 * PGlite on it corrupts it), and `ugs backup` asks the process holding it for an online backup.
 * The kernel drops the socket with its process, so a file left by a crashed one answers nothing.
 */
export const HOLDER_SOCKET = 'ugs.sock';

/** Longest socket path the kernel takes (sun_path, with its final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
const GREETING_TIMEOUT_MS = 5_000;

/** A request to the holder, and its answer: `error` says in one line why it could not be done. */
export type HolderRequest = { op: string };
export type HolderReply = { [field: string]: unknown; error?: string };

/** What lives as long as one client's connection: cleanups run when it closes, however it ends. */
export interface HolderSession {
  onClose(cleanup: () => Promise<void>): void;
}

export type HolderHandler = (request: HolderRequest, session: HolderSession) => Promise<HolderReply>;

export interface DataDirHold {
  /** Answers requests with `handler` from now on (before, they are refused). */
  serve(handler: HolderHandler): void;
  release(): Promise<void>;
}

/** Another process has the folder open. */
export class DataDirInUseError extends Error {
  constructor(readonly pid: number | undefined) {
    super(`it is in use by another process${pid ? ` (pid ${pid})` : ''}: one process at a time may open it`);
  }
}

/**
 * Makes this process the holder of `dataDir`: binds its socket (mode 0600), or fails with
 * DataDirInUseError when a live process holds it. A socket file left by a process that ended
 * without closing it is replaced.
 */
export async function holdDataDir(dataDir: string): Promise<DataDirHold> {
  const path = socketPath(dataDir);
  let handler: HolderHandler | undefined;
  const server = createServer((socket) => {
    socket.on('error', () => {});
    void answer(socket, (request, session) => handler
      ? handler(request, session)
      : Promise.resolve({ error: 'the store is still opening; try again in a moment' }));
  });
  await bind(server, path).catch(async (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const holder = await connectToHolder(dataDir);
    if (holder) {
      holder.close();
      throw new DataDirInUseError(holder.pid);
    }
    unlinkSync(path);
    await bind(server, path);
  });
  chmodSync(path, 0o600);
  return {
    serve: (serving) => {
      handler = serving;
    },
    release: () => new Promise((done) => server.close(() => done())),
  };
}

/** A connection to the process holding a folder. */
export interface HolderClient {
  pid: number | undefined;
  /** The holder's reply; rejects if the connection ends first (the holder stopped). */
  request(request: HolderRequest): Promise<HolderReply>;
  close(): void;
}

/** The process holding `dataDir`, or undefined when none does (no socket, or one left by an ended process). */
export async function connectToHolder(dataDir: string): Promise<HolderClient | undefined> {
  const socket = createConnection(socketPath(dataDir));
  const connected = await new Promise<boolean>((done, fail) => {
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') done(false);
      else fail(error);
    });
  });
  if (!connected) return undefined;
  socket.on('error', () => {});
  const lines = createInterface({ input: socket })[Symbol.asyncIterator]();
  const nextLine = async (): Promise<HolderReply> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the process holding ${dataDir} closed the connection (did it stop?)`);
    return JSON.parse(value as string) as HolderReply;
  };
  const timeout = new Promise<HolderReply>((done) => setTimeout(() => done({}), GREETING_TIMEOUT_MS).unref());
  const greeting = await Promise.race([nextLine(), timeout]).catch(() => ({} as HolderReply));
  return {
    pid: typeof greeting.holder === 'number' ? greeting.holder : undefined,
    request: async (request) => {
      socket.write(`${JSON.stringify(request)}\n`);
      return nextLine();
    },
    close: () => socket.destroy(),
  };
}

/** Greets with this process's id, then answers each request line with one reply line, in order. */
async function answer(socket: Socket, handler: HolderHandler): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  const session: HolderSession = { onClose: (cleanup) => cleanups.push(cleanup) };
  socket.write(`${JSON.stringify({ holder: process.pid })}\n`);
  try {
    for await (const line of createInterface({ input: socket })) {
      const reply = await parsed(line).then((request) => handler(request, session))
        .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
      if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

async function parsed(line: string): Promise<HolderRequest> {
  const request = JSON.parse(line) as unknown;
  if (typeof request !== 'object' || request === null || typeof (request as HolderRequest).op !== 'string') {
    throw new Error('not a request');
  }
  return request as HolderRequest;
}

/**
 * The socket's path, relative to the working directory when that is shorter: the kernel takes
 * at most 107 bytes, which a deep absolute path can pass.
 */
function socketPath(dataDir: string): string {
  const absolute = resolve(dataDir, HOLDER_SOCKET);
  const shortest = [absolute, relative(process.cwd(), absolute)].sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b))[0]!;
  if (Buffer.byteLength(shortest) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`its path is too long for the socket ${HOLDER_SOCKET} in it (${Buffer.byteLength(absolute)} bytes; `
      + `at most ${MAX_SOCKET_PATH_BYTES}): choose a shorter DATA_DIR`);
  }
  return shortest;
}

function bind(server: Server, path: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => {
      server.off('error', fail);
      done();
    });
  });
}
