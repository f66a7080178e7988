import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of an HTTP server that can lose one answer: once armed, the next
 * connection whose request contains `marker` is cut as soon as the server starts answering, and
 * the answer is not forwarded. The server did the work; the client sees a network error.
 */
export class ResponseDroppingProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private armed: string | undefined;
  /** Answers lost so far. */
  dropped = 0;
  port = 0;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      let dropAnswer = false;
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.on('data', (chunk: Buffer) => {
        if (this.armed && chunk.toString('latin1').includes(this.armed)) {
          this.armed = undefined;
          dropAnswer = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (dropAnswer) {
          this.dropped += 1;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(chunk);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Loses the answer to the next request that contains `marker` (e.g. its request line). */
  arm(marker: string): void {
    this.armed = marker;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
