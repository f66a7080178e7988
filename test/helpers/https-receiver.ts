import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** Path of the CA certificate (PEM), for WEBHOOK_CA_FILE. */
  caFile: string;
  /** The server's certificate and key (PEM), valid for 127.0.0.1, ::1 and localhost. */
  cert: string;
  key: string;
}

/** Makes a throwaway CA and a server certificate signed by it, with openssl, in a temp folder. */
export function createTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-test-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2',
    '-subj', '/CN=UGS Webhook Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('server.ext'), [
    'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
    'basicConstraints=CA:FALSE',
    'keyUsage=digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'),
    '-CAcreateserial', '-out', file('server.pem'), '-days', '2', '-extfile', file('server.ext'));
  return { caFile: file('ca.pem'), cert: readFileSync(file('server.pem'), 'utf8'), key: readFileSync(file('server.key'), 'utf8') };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body exactly as it arrived. */
  rawBody: Buffer;
  receivedAt: number;
}

/** How the receiver answers one request. */
export type Cue =
  | { status: number; delayMs?: number }
  /** Destroys the connection without an answer. */
  | { reset: true }
  /** Never answers (until the client gives up or the receiver closes). */
  | { hang: true };

/** A real HTTPS server on 127.0.0.1 that records every request and answers on cue (default 200). */
export class HttpsReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly cues: Cue[] = [];
  private readonly sockets = new Set<Socket>();
  /** Answer used when no cue is queued. */
  fallback: Cue = { status: 200 };
  /** Requests being answered now, and the most there ever were at once. */
  open = 0;
  maxOpen = 0;

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(certificates: Pick<TestCertificates, 'cert' | 'key'>): Promise<HttpsReceiver> {
    let receiver: HttpsReceiver | undefined;
    const server = createServer({ cert: certificates.cert, key: certificates.key }, (req, res) => {
      receiver!.open += 1;
      receiver!.maxOpen = Math.max(receiver!.maxOpen, receiver!.open);
      res.on('close', () => {
        receiver!.open -= 1;
      });
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const cue = receiver!.cues.shift() ?? receiver!.fallback;
        receiver!.requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v ?? ''])),
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
        });
        if ('reset' in cue) {
          req.socket.destroy();
          return;
        }
        if ('hang' in cue) return;
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(cue.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ received: true }));
        };
        if (cue.delayMs) setTimeout(answer, cue.delayMs);
        else answer();
      });
    });
    server.on('connection', (socket: Socket) => {
      receiver?.sockets.add(socket);
      socket.on('close', () => receiver?.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new HttpsReceiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  /** Queues answers for the next requests, in order. */
  cue(...cues: Cue[]): void {
    this.cues.push(...cues);
  }

  url(path = '/hook'): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  /** Requests whose path is `path`. */
  at(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.requests)) {
      if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${this.requests.length} requests)`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
