import { createServer, type Server, type Socket, connect } from 'node:net';

/** A loopback TCP proxy that can cut the line: stands for a database server going away. */
export class TcpProxy {
  private sockets = new Set<Socket>();
  private server: Server | undefined;
  port = 0;
  /** While true, each connection is closed as soon as it is accepted, and the port stays held. */
  refusing = false;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {}

  async start(port = 0): Promise<void> {
    this.server = createServer((client) => {
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.server = undefined;
  }

  /** Accepts connections again on the same port. */
  async restore(): Promise<void> {
    await this.start(this.port);
  }

  async stop(): Promise<void> {
    if (this.server) await this.cut();
  }
}
