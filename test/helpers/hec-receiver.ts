import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TestCertificates } from './https-receiver.js';

/** One event of a HEC request, as HEC reads it. */
export interface HecEvent {
  time: number;
  host: string;
  source: string;
  sourcetype: string;
  event: { id: string; timestamp: string; event_type: string; tenant_id: string; data: unknown };
}

export interface HecRequest {
  path: string;
  headers: Record<string, string>;
  rawBody: Buffer;
  /** The events it carried, when its body could be read (also for refused requests). */
  events: HecEvent[];
  /** What the receiver answered. */
  status: number;
}

/** A HEC answer: `{text, code}` with its HTTP status. */
export interface HecAnswer {
  status: number;
  text: string;
  code: number;
}

export const HEC_ANSWERS = {
  success: { status: 200, text: 'Success', code: 0 },
  busy: { status: 503, text: 'Server is busy', code: 9 },
  invalidData: { status: 400, text: 'Invalid data format', code: 6 },
} satisfies Record<string, HecAnswer>;

/**
 * A real HTTPS server on 127.0.0.1 that speaks Splunk HEC's protocol at any path: it checks
 * `Authorization: Splunk <token>` (401 code 2 without it, 401 code 3 for another scheme, 403 code 4
 * for another token), reads the body as concatenated JSON objects that each need an `event`
 * (400 code 6 or 12 otherwise, code 5 when empty), and answers 200 `{"text":"Success","code":0}`,
 * or the answers queued with `cue` (e.g. 503 code 9, "Server is busy").
 */
export class HecReceiver {
  readonly requests: HecRequest[] = [];
  private readonly cues: HecAnswer[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, readonly port: number, readonly token: string) {}

  static async start(certificates: Pick<TestCertificates, 'cert' | 'key'>, token: string): Promise<HecReceiver> {
    let receiver: HecReceiver | undefined;
    const server = createServer({ cert: certificates.cert, key: certificates.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v ?? '']));
        const read = readEvents(rawBody.toString('utf8'));
        const answer = receiver!.answer(headers.authorization, read);
        receiver!.requests.push({ path: req.url ?? '', headers, rawBody, events: 'events' in read ? read.events : [], status: answer.status });
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify({ text: answer.text, code: answer.code, ...('invalidEvent' in read ? { 'invalid-event-number': read.invalidEvent } : {}) }));
      });
    });
    server.on('connection', (socket: Socket) => {
      receiver?.sockets.add(socket);
      socket.on('close', () => receiver?.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new HecReceiver(server, (server.address() as AddressInfo).port, token);
    return receiver;
  }

  /** Queues answers for the next requests that carry the right token, in order. */
  cue(...answers: HecAnswer[]): void {
    this.cues.push(...answers);
  }

  url(path = '/services/collector/event'): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  /** The events HEC accepted (answered 200 code 0), in the order they arrived. */
  get accepted(): HecEvent[] {
    return this.requests.filter((r) => r.status === 200).flatMap((r) => r.events);
  }

  async waitFor(predicate: (receiver: HecReceiver) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) throw new Error(`HEC receiver: condition not met within ${timeoutMs} ms (${this.requests.length} requests)`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(authorization: string | undefined, read: ReturnType<typeof readEvents>): HecAnswer {
    if (!authorization) return { status: 401, text: 'Token is required', code: 2 };
    const [scheme, token] = authorization.split(' ');
    if (scheme !== 'Splunk' || !token) return { status: 401, text: 'Invalid authorization', code: 3 };
    if (token !== this.token) return { status: 403, text: 'Invalid token', code: 4 };
    const cued = this.cues.shift();
    if (cued) return cued;
    if ('error' in read) return read.error;
    return HEC_ANSWERS.success;
  }
}

/** HEC's reading of a body: JSON objects one after the other (whitespace between is allowed), each with an `event`. */
function readEvents(body: string): { events: HecEvent[] } | { error: HecAnswer; invalidEvent: number } {
  const events: HecEvent[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i]!;
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 0 && /\s/.test(c)) continue;
    if (depth === 0 && c !== '{') return { error: HEC_ANSWERS.invalidData, invalidEvent: events.length };
    if (c === '"') inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (c === '}') {
      depth -= 1;
      if (depth === 0) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body.slice(start, i + 1));
        } catch {
          return { error: HEC_ANSWERS.invalidData, invalidEvent: events.length };
        }
        if (typeof parsed !== 'object' || parsed === null || !('event' in parsed)) {
          return { error: { status: 400, text: 'Event field is required', code: 12 }, invalidEvent: events.length };
        }
        events.push(parsed as HecEvent);
      }
    }
  }
  if (depth !== 0) return { error: HEC_ANSWERS.invalidData, invalidEvent: events.length };
  if (events.length === 0) return { error: { status: 400, text: 'No data', code: 5 }, invalidEvent: 0 };
  return { events };
}
