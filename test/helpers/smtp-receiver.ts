import { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw RFC 5322 message as received. */
  raw: string;
  subject: string;
  /** The decoded text body. */
  text: string;
}

/** A real SMTP server on loopback that keeps every message it receives. */
export class SmtpReceiver {
  readonly messages: ReceivedMail[] = [];
  private waiters: Array<() => void> = [];

  private constructor(private readonly server: SMTPServer, readonly port: number) {}

  static async start(): Promise<SmtpReceiver> {
    let receiver: SmtpReceiver | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          receiver!.receive({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            ...parse(raw),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    receiver = new SmtpReceiver(server, port);
    return receiver;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  private receive(mail: ReceivedMail): void {
    this.messages.push(mail);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Waits for the first message to `recipient` (optionally matching), up to `timeoutMs`. */
  async waitFor(recipient: string, match: (mail: ReceivedMail) => boolean = () => true, timeoutMs = 10_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.to.includes(recipient.toLowerCase()) || m.to.includes(recipient));
      if (found && match(found)) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no email to ${recipient} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function parse(raw: string): { subject: string; text: string } {
  const [head = '', ...bodyParts] = raw.split(/\r?\n\r?\n/);
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const subject = /^subject:\s*(.*)$/im.exec(unfolded)?.[1]?.trim() ?? '';
  const encoding = /^content-transfer-encoding:\s*(.*)$/im.exec(unfolded)?.[1]?.trim().toLowerCase();
  let text = bodyParts.join('\n\n');
  if (encoding === 'quoted-printable') {
    text = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  } else if (encoding === 'base64') {
    text = Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return { subject, text };
}
