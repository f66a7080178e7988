import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { TestCertificates } from './https-receiver.js';
import { freePort, tempDir } from './process.js';

const BINARY = process.env.RSYSLOGD_PATH ?? '/usr/sbin/rsyslogd';

/** Debian's GnuTLS stream driver (package rsyslog-gnutls), which `imtcp` needs for TLS. */
function gtlsDriverFound(): boolean {
  const libs = '/usr/lib';
  const dirs = [join(libs, 'rsyslog'), ...readdirSync(libs).map((name) => join(libs, name, 'rsyslog'))];
  return dirs.some((dir) => existsSync(join(dir, 'lmnsd_gtls.so')));
}

/** Why the rsyslog tests cannot run here, or null when they can. */
export const rsyslogMissing: string | null = !existsSync(BINARY)
  ? `${BINARY} not found (install Debian's rsyslog and rsyslog-gnutls, or set RSYSLOGD_PATH)`
  : !gtlsDriverFound() ? 'rsyslog\'s TLS driver lmnsd_gtls.so not found (install Debian\'s rsyslog-gnutls)' : null;

/** What rsyslog made of one message it received: its own parse, beside the raw text. */
export interface RsyslogRecord {
  /** The message exactly as framed by the sender (RFC 5425 frame removed). */
  raw: string;
  pri: string;
  app: string;
  procid: string;
  msgid: string;
  sd: string;
  msg: string;
}

/**
 * A real rsyslogd of its own: imtcp with TLS (GnuTLS, anonymous client authentication, the
 * server's certificate from the test CA) on a free loopback port, in the foreground, with its own
 * configuration (`-f`), pid file (`-i`) and work folder in a temp folder. Only imtcp is loaded: no
 * imuxsock, so it opens no system socket (/dev/log), and no imklog. Each message it receives is
 * written, one JSON line each, with its raw text and rsyslog's parse of it. Stop and start again
 * keep the port and the file.
 */
export class RsyslogReceiver {
  private child: ChildProcess | undefined;

  private constructor(private readonly dir: string, readonly port: number) {}

  static async start(certificates: Pick<TestCertificates, 'cert' | 'key' | 'caFile'>): Promise<RsyslogReceiver> {
    if (rsyslogMissing) throw new Error(rsyslogMissing);
    const dir = tempDir('ugs-rsyslog-');
    writeFileSync(join(dir, 'server.pem'), certificates.cert);
    writeFileSync(join(dir, 'server.key'), certificates.key);
    const receiver = new RsyslogReceiver(dir, await freePort());
    writeFileSync(join(dir, 'rsyslog.conf'), receiver.config(certificates.caFile));
    await receiver.resume();
    return receiver;
  }

  url(): string {
    return `syslog+tls://127.0.0.1:${this.port}`;
  }

  /** Every message received so far, in order. */
  records(): RsyslogRecord[] {
    const file = join(this.dir, 'received.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as RsyslogRecord);
  }

  /** rsyslog's own messages (start, stop, errors such as a failed TLS handshake). */
  log(): string {
    const file = join(this.dir, 'rsyslogd.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  /** Waits until `predicate` holds for the records (or fails after `timeoutMs`). */
  async waitFor(predicate: (records: RsyslogRecord[]) => boolean, timeoutMs = 10_000): Promise<RsyslogRecord[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const records = this.records();
      if (predicate(records)) return records;
      if (Date.now() > deadline) throw new Error(`rsyslog: condition not met; ${records.length} records; log:\n${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops rsyslogd (SIGTERM) and waits for it to exit: its connections close, the port refuses. */
  async pause(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** Starts rsyslogd again on the same port, appending to the same file. */
  async resume(): Promise<void> {
    if (this.child) return;
    const child = spawn(BINARY, ['-n', '-f', join(this.dir, 'rsyslog.conf'), '-i', join(this.dir, 'rsyslogd.pid')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await this.listening())) {
      if (child.exitCode !== null) throw new Error(`rsyslogd exited (${child.exitCode}): ${stderr}${this.log()}`);
      if (Date.now() > deadline) throw new Error(`rsyslogd not listening on ${this.port}: ${stderr}${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    await this.pause();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private listening(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  }

  private config(caFile: string): string {
    const file = (name: string) => join(this.dir, name);
    return [
      `global(workDirectory="${this.dir}" maxMessageSize="64k"`,
      `  defaultNetstreamDriverCAFile="${caFile}"`,
      `  defaultNetstreamDriverCertFile="${file('server.pem')}" defaultNetstreamDriverKeyFile="${file('server.key')}")`,
      'module(load="imtcp" StreamDriver.Name="gtls" StreamDriver.Mode="1" StreamDriver.AuthMode="anon")',
      `input(type="imtcp" address="127.0.0.1" port="${this.port}" ruleset="received")`,
      // rawmsg: the bytes of the message as sent; the others: rsyslog's RFC 5424 parse of them.
      'template(name="record" type="list" option.jsonf="on") {',
      '  property(outname="raw" name="rawmsg" format="jsonf")',
      '  property(outname="pri" name="pri" format="jsonf")',
      '  property(outname="app" name="app-name" format="jsonf")',
      '  property(outname="procid" name="procid" format="jsonf")',
      '  property(outname="msgid" name="msgid" format="jsonf")',
      '  property(outname="sd" name="structured-data" format="jsonf")',
      '  property(outname="msg" name="msg" format="jsonf")',
      '}',
      `ruleset(name="received") { action(type="omfile" file="${file('received.jsonl')}" template="record") }`,
      // rsyslogd's own messages, for a failing test's report.
      `*.* action(type="omfile" file="${file('rsyslogd.log')}")`,
      '',
    ].join('\n');
  }
}
