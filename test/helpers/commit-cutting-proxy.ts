import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of PostgreSQL that can lose one COMMIT acknowledgement: once
 * armed, the first connection that runs a statement containing `marker` and then sends `commit`
 * is cut as soon as the server answers that commit, and the answer is not forwarded. The
 * transaction is committed, but the client sees "Connection terminated" (a network failure at
 * the worst moment).
 */
export class CommitCuttingProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private armed: string | undefined;
  /** Commits whose acknowledgement was lost. */
  cuts = 0;
  port = 0;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      let sawMarker = false;
      let commitSent = false;
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1').toLowerCase();
        if (this.armed && text.includes(this.armed)) sawMarker = true;
        // A simple-protocol Query message: 'Q', its length, then the text.
        if (sawMarker && chunk[0] === 0x51 && text.slice(5).startsWith('commit')) commitSent = true;
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (commitSent && this.armed) {
          // The server has committed and answered: the client never hears of it.
          this.armed = undefined;
          this.cuts += 1;
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

  /** Loses the acknowledgement of the next commit of a transaction that ran `marker`. */
  arm(marker: string): void {
    this.armed = marker.toLowerCase();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}
